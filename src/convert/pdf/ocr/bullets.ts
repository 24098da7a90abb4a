import type { OcrLine } from './hocr.ts';

/** What Tesseract's English model reads a round list bullet as. */
const BULLET_LOOKALIKE = /^[eo©®«»°¢@•●◦·]{1,2}$/u;

/**
 * A bullet misread as a letter or two ("e", "©", "e¢" ...) becomes "•" again, so that the layout sees a
 * list marker: a lone look-alike that starts the line and stands apart from the next word
 * by more than a word space (list text starts at a tab stop), or makes up the whole line.
 */
export function restoreBullets(lines: readonly OcrLine[]): void {
  for (const line of lines) {
    const [first, next] = line.words;
    if (!first || !BULLET_LOOKALIKE.test(first.text)) continue;
    const xHeight = line.size - line.ascenders - line.descenders;
    const gap = next ? next.left - first.right : Number.POSITIVE_INFINITY;
    if (gap > Math.max(1, xHeight) * 1.2) first.text = '•';
  }
}
