import type { Root } from 'hast';
import { eachElement } from './walk-elements.ts';

/** Unique image sources in document order; inline (data:) images are left out when removeBase64Images. */
export function collectImages(tree: Root, opts: { removeBase64Images: boolean }): string[] {
  const seen = new Set<string>();
  eachElement(tree, (el) => {
    if (el.tagName !== 'img') return;
    const src = typeof el.properties.src === 'string' ? el.properties.src.trim() : '';
    if (!src) return;
    if (opts.removeBase64Images && /^data:/i.test(src)) return;
    seen.add(src);
  });
  return [...seen];
}
