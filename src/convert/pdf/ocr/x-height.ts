import type { GrayImage } from './gray-image.ts';
import { type OcrLine, type OcrWord, xHeightOf } from './hocr.ts';

/** Letters spanning exactly the x-height: a word with two of them in a row shows the meanline. */
const X_LETTERS = /[acemnorsuvwxz]{2}/;

/**
 * How far from Tesseract's estimate the meanline is looked for, as a share of the x-height
 * (at least 1.5 px): its estimate is a whole number of pixels, off by one now and then, while
 * a cap height, the nearest other strong edge, is ~1.4 x-heights up.
 */
const SEARCH = 0.25;

/**
 * Ink per pixel row of the word's box, from one row above it to one below (darkness summed,
 * so that an anti-aliased edge falls between rows).
 */
function rowInk(image: GrayImage, word: OcrWord): number[] {
  const { width, height, pixels } = image;
  const top = Math.max(0, word.top - 1);
  const bottom = Math.min(height, word.bottom + 1);
  const left = Math.max(0, word.left);
  const right = Math.min(width, word.right);
  const ink: number[] = [];
  for (let y = top; y < bottom; y++) {
    let sum = 0;
    for (let i = y * width + left, end = y * width + right; i < end; i++) sum += 255 - (pixels[i] ?? 255);
    ink.push(sum);
  }
  return ink;
}

/**
 * Where, between `from` and `to`, ink changes most in the direction `sign`, to a fraction of a
 * row; NaN when that is at either end, as the edge then lies outside and was not found.
 */
function strongestEdge(change: readonly number[], from: number, to: number, sign: 1 | -1): number {
  const first = Math.max(0, from);
  const last = Math.min(change.length - 1, to);
  let best = first;
  for (let i = first; i <= last; i++) if (sign * (change[i] ?? 0) > sign * (change[best] ?? 0)) best = i;
  if (best <= first || best >= last) return Number.NaN;
  // A parabola through the peak and its neighbours places the edge between rows.
  const a = sign * (change[best - 1] ?? 0);
  const b = sign * (change[best] ?? 0);
  const c = sign * (change[best + 1] ?? 0);
  const curve = a - 2 * b + c;
  return best + (curve < 0 ? (0.5 * (a - c)) / curve : 0);
}

/** The word's x-height: baseline (sharpest fall of ink) minus meanline (sharpest rise near the estimate). */
function wordXHeight(image: GrayImage, word: OcrWord, estimate: number): number {
  const ink = rowInk(image, word);
  // change[i]: ink of row i + 1 minus row i, the edge between them.
  const change = ink.slice(1).map((value, i) => value - (ink[i] ?? 0));
  const half = Math.floor(change.length / 2);
  const baseline = strongestEdge(change, half, change.length - 1, -1);
  const slack = Math.max(1.5, estimate * SEARCH);
  const meanline = strongestEdge(
    change,
    Math.floor(baseline - estimate - slack),
    Math.ceil(baseline - estimate + slack),
    1,
  );
  return baseline - meanline;
}

/**
 * The line's x-height measured on the image to a fraction of a pixel, or undefined when none
 * of its words shows a meanline. Tesseract's own estimate is whole pixels and can be a pixel
 * off: at 200 dpi two headings of one style read as 18 and 19 px, 13.5 and 14.25 pt, and so
 * came out at two heading levels, and bold body text as 16 px over regular 15. Edges found
 * word by word (short enough that a skewed scan's slant does not blur them; median over the
 * words) put those at 17.1-17.2 and 15.1-15.3 px. Edges more than the search window away
 * from the estimate are not found, so a failed measure never moves a size by more than that.
 */
export function measureXHeight(image: GrayImage, line: OcrLine): number | undefined {
  const estimate = xHeightOf(line);
  if (!(estimate > 0)) return undefined;
  const heights = line.words
    .filter((word) => X_LETTERS.test(word.text))
    .map((word) => wordXHeight(image, word, estimate))
    .filter((h) => Number.isFinite(h) && h > 0)
    .sort((a, b) => a - b);
  if (heights.length === 0) return undefined;
  const mid = heights.length >> 1;
  return heights.length % 2 ? heights[mid] : ((heights[mid - 1] ?? 0) + (heights[mid] ?? 0)) / 2;
}
