import type { Root } from 'hast';
import { REPEATED_PICTURE_SRC } from '../transform/repeated-pictures.ts';
import { eachElement } from './walk-elements.ts';

/**
 * Unique image sources in document order, inline (data:) images included: upstream applies
 * removeBase64Images to the Markdown only, and for documents the data URI is how an embedded
 * picture's bytes reach the caller.
 */
export function collectImages(tree: Root): string[] {
  const seen = new Set<string>();
  eachElement(tree, (el) => {
    if (el.tagName !== 'img') return;
    const src = typeof el.properties.src === 'string' ? el.properties.src.trim() : '';
    // A repeated picture's later copies point back at its first, listed already.
    if (!src || src === REPEATED_PICTURE_SRC) return;
    seen.add(src);
  });
  return [...seen];
}
