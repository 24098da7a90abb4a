import type { Root } from 'hast';
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
    if (!src) return;
    seen.add(src);
  });
  return [...seen];
}
