import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { layoutPage } from './layout/page-layout.ts';
import type { PageBlock } from './layout/types.ts';
import type { PdfJs } from './load-document.ts';
import { ocrPage } from './ocr/ocr-page.ts';
import type { PageContent, TextRun } from './page-content.ts';
import { type ReadState, readPage } from './read-page.ts';
import { tableNode } from './table-node.ts';
import { findTables } from './tables/find-tables.ts';

export type Mode = 'fast' | 'auto' | 'ocr';

/** One page laid out: its blocks in reading order (plain data, so it crosses threads). */
export interface LaidPage {
  index: number;
  blocks: PageBlock[];
  height: number;
}

export interface RangeResult {
  pages: LaidPage[];
  failed: number;
  ocrFailed: number;
}

/**
 * Pages [from, to) of an open document, one at a time: read, OCR when the mode asks for it,
 * tables, layout. Each page's pdf.js resources are released before the next is read.
 */
export async function processRange(
  pdfjs: PdfJs,
  doc: PDFDocumentProxy,
  from: number,
  to: number,
  mode: Mode,
): Promise<RangeResult> {
  const result: RangeResult = { pages: [], failed: 0, ocrFailed: 0 };
  const state: ReadState = {
    wantImages: mode === 'auto',
    wantLinks: mode !== 'fast',
    anchorLinks: false,
    pagesRead: 0,
  };
  for (let i = from; i < to; i++) {
    let page: PDFPageProxy;
    try {
      page = await doc.getPage(i + 1);
    } catch {
      result.failed++;
      continue;
    }
    try {
      const { content, garbage } = await readPage(pdfjs, page, i, state);
      if (mode === 'ocr' || (mode === 'auto' && needsOcr(content, garbage))) {
        try {
          const words = await ocrPage(page, content, {});
          if (trustOcr(words, content.runs, garbage)) content.runs = words;
        } catch {
          result.ocrFailed++;
        }
      }
      // Text over a full-page image is a scan's OCR layer, often set in Courier: not code.
      if (content.images.some((img) => img.coverage > 0.8)) for (const r of content.runs) r.monospace = false;
      const tables = findTables(content).map((table) => ({ table, node: tableNode(table) }));
      result.pages.push({ index: i, blocks: layoutPage(content, tables), height: content.height });
    } catch {
      result.failed++;
    } finally {
      page.cleanup();
    }
  }
  return result;
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
