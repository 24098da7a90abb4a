import { listMarker } from '../layout/lists.ts';
import type { GrayImage } from './gray-image.ts';
import { type OcrLine, type OcrWord, xHeightOf } from './hocr.ts';

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
    const xHeight = xHeightOf(line);
    const gap = next ? next.left - first.right : Number.POSITIVE_INFINITY;
    if (gap > Math.max(1, xHeight) * 1.2) first.text = '•';
  }
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The box the ink inside `area` fills and how many ink pixels it holds, or undefined for none. */
function inkIn(image: GrayImage, area: Box, threshold: number): { box: Box; ink: number } | undefined {
  const box: Box = { left: area.right, top: area.bottom, right: area.left, bottom: area.top };
  let ink = 0;
  for (let y = Math.max(0, area.top); y < Math.min(image.height, area.bottom); y++)
    for (let x = Math.max(0, area.left); x < Math.min(image.width, area.right); x++) {
      if ((image.pixels[y * image.width + x] ?? 255) > threshold) continue;
      ink++;
      box.left = Math.min(box.left, x);
      box.top = Math.min(box.top, y);
      box.right = Math.max(box.right, x + 1);
      box.bottom = Math.max(box.bottom, y + 1);
    }
  return ink > 0 ? { box, ink } : undefined;
}

/**
 * Bullets Tesseract dropped: it takes a column of dots beside a list for specks, and reads the
 * items without them (a page of three bulleted lists lost all of one). A line whose first
 * word has, within a tab (five x-heights) to its left, no other word but one solid blob of
 * about the x-height (a third to one, more than half of its box inked: a round or square
 * bullet, not a hyphen, a comma or a speck) gets that blob back as "•".
 * `threshold` is the page's ink level (`inkThreshold`).
 */
export function findLostBullets(image: GrayImage, lines: readonly OcrLine[], threshold: number): void {
  const words = lines.flatMap((line) => line.words);
  for (const line of lines) {
    const first = line.words[0];
    const xHeight = xHeightOf(line);
    if (!first || !(xHeight > 0)) continue;
    const area: Box = {
      left: Math.max(0, Math.round(first.left - 5 * xHeight)),
      top: first.top,
      right: Math.round(first.left - 0.5 * xHeight),
      bottom: first.bottom,
    };
    if (area.right <= area.left) continue;
    const crowded = words.some(
      (w) => w.right > area.left && w.left < area.right && w.bottom > area.top && w.top < area.bottom,
    );
    if (crowded) continue;
    const blob = inkIn(image, area, threshold);
    if (!blob) continue;
    const width = blob.box.right - blob.box.left;
    const height = blob.box.bottom - blob.box.top;
    const sized = (d: number) => d >= xHeight / 3 && d <= xHeight;
    if (!sized(width) || !sized(height) || blob.ink * 2 < width * height) continue;
    line.words.unshift({ text: '•', ...blob.box, confidence: first.confidence });
  }
}

/**
 * A list marker ("1.", "a)", "•") that Tesseract set apart as a line of its own, as it does
 * when a tab separates it from the item, joins the line that starts within five x-heights to
 * its right on the same band: alone, its box (digits only, no descenders) keeps it off the
 * item's row in the layout, and the item loses its number.
 */
export function joinMarkers(lines: OcrLine[]): void {
  for (let i = lines.length - 1; i >= 0; i--) {
    const marker = lines[i];
    const word = marker?.words[0];
    if (!marker || !word || marker.words.length > 1 || !listMarker(`${word.text} x`)) continue;
    const reach = word.right + 5 * Math.max(1, xHeightOf(marker));
    const item = lines.find((line): line is OcrLine & { words: [OcrWord, ...OcrWord[]] } => {
      const first = line.words[0];
      return (
        line !== marker &&
        first !== undefined &&
        first.left > word.left &&
        first.left < reach &&
        Math.min(first.bottom, word.bottom) - Math.max(first.top, word.top) > (word.bottom - word.top) / 2
      );
    });
    if (!item) continue;
    item.words.unshift(word);
    lines.splice(i, 1);
  }
}
