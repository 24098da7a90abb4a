import { limits } from '../../limits.ts';
import { ocrImage } from '../pdf/ocr/ocr-image.ts';
import { withOcrSlot } from '../pdf/ocr/tesseract.ts';
import type { PageContent, TextRun } from '../pdf/page-content.ts';
import type { DecodedFrame, ImageSource } from './image-source.ts';

/**
 * Resolution assumed for the page frame of an image that declares none. Such images are
 * mostly screenshots and web graphics, drawn at CSS's 96 pixels an inch, whose text then
 * comes out at its on-screen point size; the layout's few absolute measures (a column gutter
 * of 6 pt) fit that. It decides only the points the layout works in: Tesseract is left to
 * estimate the resolution from the text itself.
 */
const ASSUMED_DPI = 96;

/**
 * When a frame's first reading is tried again at ZOOM times the size: its text lines are
 * lower than SMALL_LINE_PX (median, in pixels), or its words are poorly recognized and its
 * lines under twice that. Tesseract wants an x-height of ~20 px. Measured (word precision and
 * recall against the corpus references, first reading → enlarged): screenshots of 8, 11, 13
 * and 16 px text 18/12 → 86/82, 93/93 → 99/99, 98/98 → 99/99, 98/99 → 99/100; a receipt
 * scanned at 150 dpi (14 px lines) 95/96 → 97/100; a page at 75 dpi (12 px lines) 97 → 99
 * precision. Unreadably small text misleads the line measure (8 and 11 px text read as 28 px
 * lines merged from several), which its low confidence (37 and 81) gives away.
 */
const SMALL_LINE_PX = 20;
const POOR_CONFIDENCE = 85;
const ZOOM = 2;
/** An enlargement smaller than this (the OCR pixel cap leaves no room) is not worth a second reading. */
const MIN_ZOOM = 1.5;

interface Reading {
  content: PageContent;
  /** Characters weighted by confidence, as `ocrImage` weighs a turned reading against an upright one. */
  score: number;
  /** Mean confidence of a character, 0-100. */
  confidence: number;
  /** Median height of the recognized lines, in pixels of the raster Tesseract read. */
  linePx: number;
  pixels: number;
}

/**
 * The words of one frame as a page: decoded (upright, flattened, gray) and recognized inside
 * a recognizer slot, which also bounds how many decoded frames are alive at once. Small or
 * poorly read text is read again enlarged, and that reading is kept when it recognized more
 * and more confidently: more characters alone is not enough, since an enlarged reading of
 * text that was large enough picks up noise (a receipt at 200 dpi, 18 px lines: precision
 * 97 → 87, with more characters but a mean confidence of 89 against 94).
 */
export function recognizeFrame(
  source: ImageSource,
  index: number,
  signal?: AbortSignal,
): Promise<PageContent> {
  return withOcrSlot(signal, async () => {
    const first = await read(source, index, 1, signal);
    const small =
      first.linePx < SMALL_LINE_PX ||
      (first.confidence < POOR_CONFIDENCE && first.linePx < 2 * SMALL_LINE_PX);
    const room = Math.sqrt(limits.ocrRenderPixels / first.pixels);
    if (!small || Math.min(ZOOM, room) < MIN_ZOOM) return first.content;
    const enlarged = await read(source, index, ZOOM, signal);
    const better = enlarged.score > first.score && enlarged.confidence > first.confidence;
    return better ? enlarged.content : first.content;
  });
}

async function read(
  source: ImageSource,
  index: number,
  zoom: number,
  signal?: AbortSignal,
): Promise<Reading> {
  const frame: DecodedFrame = await source.decode(index, zoom);
  const { image } = frame;
  // Pixels a point: the same page frame whatever the zoom, so both readings compare alike.
  const scale = ((frame.dpi ?? ASSUMED_DPI) / 72) * frame.resample;
  const content: PageContent = {
    index,
    width: image.width / scale,
    height: image.height / scale,
    runs: [],
    segments: [],
    links: [],
    images: [],
  };
  content.runs = await ocrImage(image, scale, content, { signal, dpi: undefined });
  const { score, chars } = tally(content.runs);
  return {
    content,
    score,
    confidence: chars > 0 ? (100 * score) / chars : 0,
    linePx: medianLineHeight(content.runs) * scale,
    pixels: image.width * image.height,
  };
}

function tally(runs: readonly TextRun[]): { score: number; chars: number } {
  let score = 0;
  let chars = 0;
  for (const run of runs) {
    score += (run.text.length * Math.max(0, run.confidence ?? 0)) / 100;
    chars += run.text.length;
  }
  return { score, chars };
}

/** Words of one line share its height, so the median over words is that of the lines, weighted by length. */
function medianLineHeight(runs: readonly TextRun[]): number {
  if (runs.length === 0) return 0;
  const heights = runs.map((r) => r.height).sort((a, b) => a - b);
  return heights[heights.length >> 1] ?? 0;
}
