import type { Root } from 'hast';
import { eachElement } from '../render/walk-elements.ts';

/** What a repeated picture's later copies show instead of its bytes: the removed-image placeholder. */
export const REPEATED_PICTURE_SRC = '<Base64-Image-Removed>';

/** Pictures smaller than this are carried every time: repeating a bullet or an icon costs little. */
const MIN_BYTES = 4096;

/**
 * An embedded picture's bytes are carried once: its first occurrence keeps its `data:` URI,
 * later occurrences of the same bytes show the placeholder, keeping their alt text. A 9.6 KB
 * DOCX that places one 8 MB picture forty times answered 447 MB of HTML. The `images` format
 * still lists the picture, once. Changes `tree` in place: call it on a converter's fresh tree.
 */
export function carryPicturesOnce(tree: Root): void {
  const seen = new Set<string>();
  eachElement(tree, (el) => {
    if (el.tagName !== 'img') return;
    const src = el.properties.src;
    if (typeof src !== 'string' || src.length < MIN_BYTES || !src.startsWith('data:')) return;
    if (seen.has(src)) el.properties.src = REPEATED_PICTURE_SRC;
    else seen.add(src);
  });
}
