import type { GrayImage } from './gray-image.ts';
import { type OcrLine, type OcrWord, xHeightOf } from './hocr.ts';

/**
 * A word counts as bold when its strokes are this much thicker than the page's typical word
 * of the same size. Measured on 200 dpi scans: bold lines 1.3-1.45, regular body lines within
 * 1 +- 0.03, a degraded receipt's regular words up to ~1.25.
 */
const BOLD_RATIO = 1.22;

/** Ink/paper threshold by Otsu's method over the page's histogram (scans vary in contrast). */
export function inkThreshold(image: GrayImage): number {
  // Every 7th pixel is plenty for a 256-bin histogram of megapixels, at a seventh of the cost.
  const histogram = new Uint32Array(256);
  const { pixels } = image;
  for (let i = 0; i < pixels.length; i += 7) {
    const value = pixels[i] ?? 255;
    histogram[value] = (histogram[value] ?? 0) + 1;
  }
  let total = 0;
  for (const count of histogram) total += count;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * (histogram[i] ?? 0);
  let below = 0;
  let belowSum = 0;
  let best = 0;
  let threshold = 128;
  for (let i = 0; i < 256; i++) {
    below += histogram[i] ?? 0;
    if (below === 0 || below === total) continue;
    belowSum += i * (histogram[i] ?? 0);
    const meanBelow = belowSum / below;
    const meanAbove = (sum - belowSum) / (total - below);
    const between = below * (total - below) * (meanBelow - meanAbove) ** 2;
    if (between > best) [best, threshold] = [between, i];
  }
  return threshold;
}

/** Mean length of the horizontal ink runs in the word's box: the width of its stems. */
function strokeWidth(image: GrayImage, word: OcrWord, threshold: number): number {
  const { width, pixels } = image;
  const left = Math.max(0, word.left);
  const right = Math.min(width, word.right);
  const bottom = Math.min(image.height, word.bottom);
  let ink = 0;
  let runs = 0;
  for (let y = Math.max(0, word.top); y < bottom; y++) {
    let inRun = false;
    for (let i = y * width + left, end = y * width + right; i < end; i++) {
      const dark = (pixels[i] ?? 255) <= threshold;
      if (dark) ink++;
      if (dark && !inRun) runs++;
      inRun = dark;
    }
  }
  return runs > 0 ? ink / runs : 0;
}

/**
 * Which words look bold: stroke width (scaled for the line's size) against the page's
 * median (`threshold` from `inkThreshold`). Words of one or two characters are judged with
 * their line, as their few strokes say little.
 */
export function findBold(image: GrayImage, lines: readonly OcrLine[], threshold: number): Set<OcrWord> {
  const measured: { word: OcrWord; weight: number; line: number }[] = [];
  lines.forEach((line, index) => {
    // Stems grow with the type, but display sizes are drawn lighter: x-height^0.75 keeps
    // 24 pt regular from passing as bold next to 11 pt, and a bold heading one size up bold.
    const size = Math.max(1, xHeightOf(line)) ** 0.75;
    for (const word of line.words) {
      const stroke = strokeWidth(image, word, threshold);
      if (stroke > 0) measured.push({ word, weight: stroke / size, line: index });
    }
  });
  const bold = new Set<OcrWord>();
  if (measured.length === 0) return bold;
  // Median by characters: the body text's weight, whatever the headings do.
  const byWeight = [...measured].sort((a, b) => a.weight - b.weight);
  const chars = byWeight.reduce((n, m) => n + m.word.text.length, 0);
  let seen = 0;
  let reference = byWeight[0]?.weight ?? 0;
  for (const m of byWeight) {
    seen += m.word.text.length;
    reference = m.weight;
    if (seen * 2 >= chars) break;
  }
  const lineInk = new Map<number, { bold: number; all: number }>();
  for (const m of measured) {
    const isBold = m.weight > reference * BOLD_RATIO;
    const tally = lineInk.get(m.line) ?? { bold: 0, all: 0 };
    tally.all += m.word.text.length;
    if (isBold) tally.bold += m.word.text.length;
    lineInk.set(m.line, tally);
    if (isBold && m.word.text.length > 2) bold.add(m.word);
  }
  for (const m of measured) {
    const tally = lineInk.get(m.line);
    if (m.word.text.length <= 2 && tally && tally.bold * 2 > tally.all) bold.add(m.word);
  }
  return bold;
}
