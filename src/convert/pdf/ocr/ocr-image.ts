import type { PageContent, TextRun } from '../page-content.ts';
import { findBold, inkThreshold } from './bold.ts';
import { findLostBullets, joinMarkers, restoreBullets } from './bullets.ts';
import { type GrayImage, halveGray, rotateGray, toPgm } from './gray-image.ts';
import { type OcrLine, type OcrWord, parseHocr, xHeightOf } from './hocr.ts';
import { runTesseract } from './tesseract.ts';
import { measureXHeight } from './x-height.ts';

/** Orientation detection needs shapes, not detail: a few megapixels decide it as well. */
const ORIENTATION_PIXELS = 4_000_000;

/**
 * Below this mean word confidence a page with text is suspected to be sideways or upside
 * down: upright print reads at 85-95, a turned page at 20-50 (Tesseract still "reads" it).
 */
const SUSPECT_CONFIDENCE = 60;
/**
 * Tesseract's orientation confidence under which its answer is a guess (handwriting: 1.3-2;
 * a sideways page of 15 words: 2.8). Low, because a turn is only kept if it reads better.
 */
const ORIENTATION_CONFIDENCE = 1;

export interface OcrImageOptions {
  signal?: AbortSignal;
  /**
   * The raster's true resolution, when it is known (a rendered PDF page). Undefined when it is
   * only claimed (an image file's header), and Tesseract then estimates it from the text: told
   * too high a resolution, it drops small text as noise (a 75 dpi scan said to be 300 dpi lost
   * half its words), while its own estimate reads every measured image as well as the truth.
   */
  dpi: number | undefined;
}

interface Recognition {
  lines: OcrLine[];
  /** Characters weighted by confidence: which of two readings recognized more. */
  score: number;
  confidence: number;
}

/** `--dpi N` when the resolution is known; nothing, so that Tesseract estimates it, when not. */
function dpiArgs(dpi: number | undefined): string[] {
  return dpi === undefined ? [] : ['--dpi', String(Math.max(1, Math.round(dpi)))];
}

async function recognize(
  image: GrayImage,
  dpi: number | undefined,
  signal?: AbortSignal,
): Promise<Recognition> {
  const args = [...dpiArgs(dpi), '-l', 'eng', '--oem', '1', '--psm', '3', 'hocr'];
  const lines = parseHocr(await runTesseract(toPgm(image), args, signal));
  let chars = 0;
  let score = 0;
  for (const line of lines) {
    for (const word of line.words) {
      chars += word.text.length;
      score += (word.text.length * Math.max(0, word.confidence)) / 100;
    }
  }
  return { lines, score, confidence: chars > 0 ? (100 * score) / chars : 0 };
}

/** The clockwise turn Tesseract's orientation detection says makes the page upright. */
async function detectTurn(
  image: GrayImage,
  dpi: number | undefined,
  signal?: AbortSignal,
): Promise<0 | 90 | 180 | 270> {
  let small = image;
  let smallDpi = dpi;
  while (small.width * small.height > ORIENTATION_PIXELS) {
    small = halveGray(small);
    if (smallDpi !== undefined) smallDpi /= 2;
  }
  let report: string;
  try {
    report = await runTesseract(toPgm(small), [...dpiArgs(smallDpi), '--psm', '0'], signal);
  } catch (error) {
    // "Too few characters" and similar: no verdict, keep the page as rendered.
    if (signal?.aborted) throw error;
    return 0;
  }
  const turn = Number(/Rotate: (\d+)/.exec(report)?.[1] ?? 0);
  const confidence = Number(/Orientation confidence: ([\d.]+)/.exec(report)?.[1] ?? 0);
  if (confidence < ORIENTATION_CONFIDENCE) return 0;
  return turn === 90 || turn === 180 || turn === 270 ? turn : 0;
}

const RTL_SCRIPT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/;

/** x-height as a share of the em in common Latin text faces (Times 0.45, Arial 0.52). */
const X_HEIGHT_PER_EM = 0.48;

/**
 * The line's type size in pixels. Tesseract fits an x-height per row, which separates sizes
 * best (a 13.4 pt heading over 12 pt body: x-height 1.2x, row size only 1.06x) and does not
 * depend on which letters the line holds, unlike its box; that fit is refined on the image
 * (`measureXHeight`). Its row size (x-height + ascenders + descenders) stands in when the
 * x-height fit is implausible, the box when there is none.
 */
function emSize(image: GrayImage, line: OcrLine, boxHeight: number): number {
  const xHeight = xHeightOf(line);
  if (xHeight > 0.3 * line.size && xHeight < 0.8 * line.size)
    return (measureXHeight(image, line) ?? xHeight) / X_HEIGHT_PER_EM;
  return line.size > 0 ? line.size : boxHeight;
}

/** Words as text runs in PDF points; a line's words share its vertical extent and size. */
function toRuns(image: GrayImage, lines: OcrLine[], scale: number, bold: ReadonlySet<OcrWord>): TextRun[] {
  const runs: TextRun[] = [];
  for (const line of lines) {
    let top = Number.POSITIVE_INFINITY;
    let bottom = Number.NEGATIVE_INFINITY;
    for (const word of line.words) {
      top = Math.min(top, word.top);
      bottom = Math.max(bottom, word.bottom);
    }
    const size = emSize(image, line, bottom - top) / scale;
    for (const word of line.words) {
      runs.push({
        text: word.text,
        x: word.left / scale,
        y: top / scale,
        width: (word.right - word.left) / scale,
        height: (bottom - top) / scale,
        fontSize: size,
        fontName: '',
        bold: bold.has(word),
        italic: false,
        monospace: false,
        dir: RTL_SCRIPT.test(word.text) ? 'rtl' : 'ltr',
        confidence: word.confidence,
      });
    }
  }
  return runs;
}

/**
 * Recognizes the words of a page's raster with Tesseract, as text runs in the page's top-left
 * point frame (`scale` pixels a point), in Tesseract's reading order (blocks, then lines).
 * Scanned PDF pages and image uploads both come through here; run it inside `withOcrSlot`,
 * which also covers the raster's memory.
 *
 * Tesseract reports no font style, so bold is measured from stroke width on the image, and
 * bullets it misreads as letters are restored (both feed heading and list detection).
 *
 * A scan placed sideways or upside down is detected (only when the upright reading is poor)
 * and read turned; the runs are then in the upright frame, and for a quarter turn
 * `content.width` and `content.height` are swapped to describe that frame.
 *
 * Throws when tesseract is missing (`TESSERACT_MISSING`), fails, times out, or `signal` aborts.
 */
export async function ocrImage(
  image: GrayImage,
  scale: number,
  content: PageContent,
  opts: OcrImageOptions,
): Promise<TextRun[]> {
  const { signal, dpi } = opts;
  let upright = image;
  let best = await recognize(image, dpi, signal);
  if (best.score > 0 && best.confidence < SUSPECT_CONFIDENCE) {
    const turn = await detectTurn(image, dpi, signal);
    if (turn !== 0) {
      const turned = rotateGray(image, turn);
      const second = await recognize(turned, dpi, signal);
      if (second.score > best.score) {
        [best, upright] = [second, turned];
        if (turn !== 180) [content.width, content.height] = [content.height, content.width];
      }
    }
  }
  const threshold = inkThreshold(upright);
  restoreBullets(best.lines);
  joinMarkers(best.lines);
  findLostBullets(upright, best.lines, threshold);
  return toRuns(upright, best.lines, scale, findBold(upright, best.lines, threshold));
}
