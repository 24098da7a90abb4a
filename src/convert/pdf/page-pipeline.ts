import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { layoutPage } from './layout/page-layout.ts';
import type { PageBlock } from './layout/types.ts';
import type { OpenedPdf, PdfJs } from './load-document.ts';
import type { Box, PageContent, TextRun } from './page-content.ts';
import { type ReadState, readPage } from './read-page.ts';
import { tableNode } from './table-node.ts';
import { findTables } from './tables/find-tables.ts';
import { oversizedStreams } from './whole-inflate.ts';

export type Mode = 'fast' | 'auto' | 'ocr';

/** One page laid out: its blocks in reading order (plain data, so it crosses threads). */
export interface LaidPage {
  index: number;
  blocks: PageBlock[];
  width: number;
  height: number;
  /** The blocks' boxes are in the frame of the page turned a quarter (vertical writing). */
  vertical: boolean;
  /** Pictures drawn on the page, where its images were read (see readPage). */
  figures: Box[];
}

/**
 * Share of the page an image must cover to count as a figure: smaller ones are bullets, rules
 * and logos' specks. One covering most of the page is its background or a scan, not a figure.
 */
const FIGURE_MIN = 0.002;
const FIGURE_MAX = 0.8;

export interface RangeResult {
  pages: LaidPage[];
  /** Indexes of the pages that could not be read. */
  failed: number[];
  /** Pages OCR was run on, failed ones included. */
  ocrPages: number;
  ocrFailed: number;
  /** Streams left out while reading these pages for inflating past their limit. */
  oversizedStreams: number;
}

/** The reading state a conversion starts from in a mode. */
export function startState(mode: Mode): ReadState {
  return {
    wantImages: mode === 'auto',
    wantLinks: mode !== 'fast',
    anchorLinks: false,
    triedFonts: new Set(),
  };
}

/**
 * The pages `claim` hands out, one at a time until it has none left: read, OCR when the mode
 * asks for it, tables, layout. Each page's pdf.js resources are released before the next.
 */
export async function processPages(
  pdfjs: PdfJs,
  pdf: OpenedPdf,
  claim: () => number | undefined,
  state: ReadState,
  mode: Mode,
): Promise<RangeResult> {
  const result: RangeResult = { pages: [], failed: [], ocrPages: 0, ocrFailed: 0, oversizedStreams: 0 };
  const oversizedBefore = oversizedStreams();
  for (let i = claim(); i !== undefined; i = claim()) {
    let page: PDFPageProxy;
    try {
      page = await pdf.doc.getPage(i + 1);
    } catch {
      result.failed.push(i);
      continue;
    }
    try {
      const { content, garbage } = await readPage(pdfjs, page, i, state);
      if (mode === 'ocr' || (mode === 'auto' && needsOcr(content, garbage))) {
        result.ocrPages++;
        try {
          // OCR's modules (a native canvas, Tesseract's runner) load with the first page OCR'd,
          // so a thread that reads text only starts without them.
          const { ocrPage } = await import('./ocr/ocr-page.ts');
          const words = await ocrPage(await pdf.drawnPage(i), content, {});
          if (trustOcr(words, content.runs, garbage)) content.runs = words;
        } catch {
          result.ocrFailed++;
        }
      }
      result.pages.push(layOutContent(content));
    } catch {
      result.failed.push(i);
    } finally {
      page.cleanup();
    }
  }
  result.oversizedStreams = oversizedStreams() - oversizedBefore;
  return result;
}

/**
 * One page's content, read from its text layer or recognized by OCR, laid out: tables, then
 * blocks in reading order. OCR'd image uploads come through here too, so they read like scans.
 */
export function layOutContent(content: PageContent): LaidPage {
  // Text over a full-page image is a scan's OCR layer, often set in Courier: not code.
  if (content.images.some((img) => img.coverage > 0.8)) for (const r of content.runs) r.monospace = false;
  const tables = findTables(content).map((table) => ({ table, node: tableNode(table) }));
  const { blocks, vertical } = layoutPage(content, tables);
  const figures: Box[] = [];
  for (const { x, y, width, height, coverage } of content.images)
    if (coverage >= FIGURE_MIN && coverage <= FIGURE_MAX) figures.push({ x, y, width, height });
  return {
    index: content.index,
    blocks,
    width: content.width,
    height: content.height,
    vertical,
    figures,
  };
}

/**
 * What the two threads share (a SharedArrayBuffer of SHARED_BYTES): the pages not yet taken,
 * [front, back), packed in one 64-bit word so that either end moves atomically, and at Int32
 * slot HELPER the helper's state.
 */
export const SHARED_BYTES = 16;
export const HELPER = 2;
/** HELPER values: not yet reading, reading pages, shut out (the main thread read them all). */
export const IDLE = 0;
export const READING = 1;
export const CLOSED = 2;

/** Shared state with the pages [from, to) left to take and the helper idle. */
export function sharePages(from: number, to: number): SharedArrayBuffer {
  const shared = new SharedArrayBuffer(SHARED_BYTES);
  new BigInt64Array(shared, 0, 1)[0] = (BigInt(from) << 32n) | BigInt(to);
  return shared;
}

/**
 * Hands out the pages left, one at a time, from the front (the main thread) or the back (the
 * helper) until the two meet. Reading from opposite ends, each thread meets most parts of a
 * document alone: in a file made of unrelated documents, each part's fonts are parsed by one
 * thread, not by both as when the threads took turns along the pages.
 */
export function takePages(shared: SharedArrayBuffer, end: 'front' | 'back'): () => number | undefined {
  const left = new BigInt64Array(shared, 0, 1);
  return () => {
    for (;;) {
      const seen = Atomics.load(left, 0);
      const front = Number(seen >> 32n);
      const back = Number(seen & 0xffffffffn);
      if (front >= back) return undefined;
      const [page, next] = end === 'front' ? [front, [front + 1, back]] : [back - 1, [front, back - 1]];
      if (Atomics.compareExchange(left, 0, seen, (BigInt(next[0]!) << 32n) | BigInt(next[1]!)) === seen)
        return page;
    }
  };
}

/** Hands out the page indexes [from, to) in order. */
export function pageRange(from: number, to: number): () => number | undefined {
  let next = from;
  return () => (next < to ? next++ : undefined);
}

/** A page without a usable text layer: images over most of it and no text, or unreadable glyphs. */
function needsOcr(content: PageContent, garbage: number): boolean {
  if (garbage > 0.3) return true;
  const chars = content.runs.reduce((n, r) => n + r.text.trim().length, 0);
  if (chars >= 40) return false;
  const covered = content.images.reduce((s, img) => s + img.coverage, 0);
  return covered >= 0.3;
}

/** Recognition quality below which OCR words do not replace a readable text layer. */
const MIN_OCR_CONFIDENCE = 50;

/**
 * Whether OCR words should replace the text layer: always when the layer is unreadable or
 * empty, otherwise only when the recognition is confident (OCR in the wrong language yields
 * nonsense with low scores, and a stamped page number is worth keeping).
 */
function trustOcr(words: readonly TextRun[], layer: readonly TextRun[], garbage: number): boolean {
  if (words.length === 0) return garbage > 0.3;
  if (garbage > 0.3 || layer.every((r) => !r.text.trim())) return true;
  let sum = 0;
  let chars = 0;
  for (const w of words) {
    sum += (w.confidence ?? 100) * w.text.length;
    chars += w.text.length;
  }
  return sum / Math.max(chars, 1) >= MIN_OCR_CONFIDENCE;
}
