import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PDFDocumentLoadingTask, PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { DirectPort } from './direct-port.ts';
import type { Mode } from './page-pipeline.ts';
import { patchedWorkerUrl } from './patched-worker.ts';
import { dropPdfjsStrayRejections } from './pdfjs-rejections.ts';
import { installWholeInflate } from './whole-inflate.ts';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/**
 * What a pdf.js document is opened for. Reading pages (text, rules, where images sit) needs
 * no glyph outlines and no decoded images; drawing a page for OCR needs both.
 */
export type Purpose = 'read' | 'draw';

const WORKER_FILE = 'legacy/build/pdf.worker.mjs';

let pdfjsModule: Promise<PdfJs> | undefined;

/** pdf.js, loaded once on first use (it is large; other formats never pay for it). */
export function loadPdfJs(): Promise<PdfJs> {
  installWholeInflate();
  pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs').then((pdfjs) => {
    // In Node pdf.js runs its worker code in-process ("fake worker"); pointing it at the local
    // file keeps it from ever resolving a worker URL elsewhere.
    pdfjs.GlobalWorkerOptions.workerSrc = path.join(pdfjsRoot(), WORKER_FILE);
    return pdfjs;
  });
  return pdfjsModule;
}

function pdfjsRoot(): string {
  return path.dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json')));
}

/** pdf.js's worker half: the part of its module Quire calls (pdf.js ships no types for it). */
interface WorkerHalf {
  WorkerMessageHandler: { initializeFromPort(port: DirectPort): void };
}

const workerHalves = new Map<Purpose, Promise<WorkerHalf>>();

/**
 * pdf.js's worker half, as changed for documents opened for `purpose` (see patched-worker.ts),
 * each copy loaded when a document is first opened for it.
 */
function loadWorkerHalf(purpose: Purpose): Promise<WorkerHalf> {
  dropPdfjsStrayRejections();
  let half = workerHalves.get(purpose);
  if (!half) {
    const shipped = pathToFileURL(path.join(pdfjsRoot(), WORKER_FILE)).href;
    half = import(patchedWorkerUrl(pdfjsRoot(), WORKER_FILE, purpose) ?? shipped);
    workerHalves.set(purpose, half);
  }
  return half;
}

/** pdf.js's two halves joined in this thread by a DirectPort rather than its copying fake worker. */
async function directWorker(pdfjs: PdfJs, purpose: Purpose): Promise<InstanceType<PdfJs['PDFWorker']>> {
  const { WorkerMessageHandler } = await loadWorkerHalf(purpose);
  const port = new DirectPort();
  WorkerMessageHandler.initializeFromPort(port);
  // Typed as a browser Worker, whose messaging part is all pdf.js uses of it.
  type WorkerPort = NonNullable<NonNullable<ConstructorParameters<PdfJs['PDFWorker']>[0]>['port']>;
  return new pdfjs.PDFWorker({ port: port as unknown as WorkerPort });
}

/**
 * Image XObjects past limits.pdfImagePixels, which pdf.js leaves out (not decoded, not rendered
 * for OCR), for a warning. Their dictionaries are never compressed (a stream cannot sit in
 * an object stream), so the bytes can be searched directly.
 */
export function oversizedImages(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  let count = 0;
  // The `obj` before a match and the `obj` and `stream` after it come from searches that only
  // move forward, and an object is judged once: a file made of matches is read once, not once
  // per match.
  let objStart = -1;
  let objEnd = text.indexOf('obj');
  let stream = 0;
  let judged: number | undefined;
  for (const m of text.matchAll(/\/Subtype\s*\/Image\b/g)) {
    while (objEnd >= 0 && objEnd < m.index) {
      objStart = objEnd;
      objEnd = text.indexOf('obj', objEnd + 1);
    }
    if (objStart === judged) continue;
    judged = objStart;
    if (stream >= 0 && stream < m.index) stream = text.indexOf('stream', m.index);
    const end = Math.min(
      m.index + 4096,
      objEnd < 0 ? text.length : objEnd,
      stream < 0 ? text.length : stream,
    );
    const dict = text.slice(Math.max(0, objStart, m.index - 4096), end);
    const width = /\/Width\s+(\d+)/.exec(dict);
    const height = /\/Height\s+(\d+)/.exec(dict);
    if (width && height && Number(width[1]) * Number(height[1]) > limits.pdfImagePixels) count++;
  }
  return count;
}

export interface OpenedPdf {
  /** The document pages are read from. */
  doc: PDFDocumentProxy;
  /**
   * A page as a document that draws it (OCR): in ocr mode the same document; otherwise a
   * second one, opened at the first page drawn, so that pages that are only read never pay
   * for glyph outlines and decoded images.
   */
  drawnPage(index: number): Promise<PDFPageProxy>;
  /** Ends the documents and the worker halves they ran on. */
  close(): Promise<void>;
}

/**
 * pdf.js set up for a server: cMaps and standard fonts from the package on disk (without them
 * CJK text comes out empty), no font faces (a document read has no glyph outlines either; one
 * drawn has them), nothing fetched. (pdf.js 6 no longer compiles code with eval, so there is no
 * `isEvalSupported` to turn off.)
 */
export function documentParams(bytes: Uint8Array, purpose: Purpose) {
  const root = pdfjsRoot();
  return {
    // pdf.js transfers (detaches) the buffer it gets; the caller's bytes stay intact.
    data: new Uint8Array(bytes),
    cMapUrl: `${root}/cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${root}/standard_fonts/`,
    wasmUrl: `${root}/wasm/`,
    iccUrl: `${root}/iccs/`,
    // With font faces disabled pdf.js builds and posts every drawn glyph's outline for the
    // canvas, a fifth of a fast conversion's CPU; a document only read is never drawn (see
    // facelessFonts).
    disableFontFace: purpose === 'draw',
    useSystemFonts: false,
    fontExtraProperties: true,
    disableAutoFetch: true,
    disableStream: true,
    // Larger images are left out (not decoded, not placed), with a warning (oversizedImages).
    maxImageSize: limits.pdfImagePixels,
    verbosity: 0,
  };
}

/**
 * Opens the bytes for a mode: read, with a document that draws opened only when a page is
 * drawn, except in ocr mode, where every page is drawn and one document does both.
 */
export async function openPdf(pdfjs: PdfJs, bytes: Uint8Array, mode: Mode): Promise<OpenedPdf> {
  if (bytes.length === 0)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The PDF file is empty (0 bytes).');
  const main = await openAs(pdfjs, bytes, mode === 'ocr' ? 'draw' : 'read');
  let drawing: Promise<OpenedDocument> | undefined = mode === 'ocr' ? Promise.resolve(main) : undefined;
  return {
    doc: main.doc,
    drawnPage: async (index) => {
      drawing ??= openAs(pdfjs, bytes, 'draw');
      return (await drawing).doc.getPage(index + 1);
    },
    close: async () => {
      const drawn = await drawing?.catch(() => undefined);
      if (drawn && drawn !== main) await drawn.close();
      await main.close();
    },
  };
}

interface OpenedDocument {
  doc: PDFDocumentProxy;
  close(): Promise<void>;
}

/** Opens the bytes with pdf.js (documentParams), its halves joined by a DirectPort. */
export async function openAs(pdfjs: PdfJs, bytes: Uint8Array, purpose: Purpose): Promise<OpenedDocument> {
  const worker = await directWorker(pdfjs, purpose);
  const task = pdfjs.getDocument({ ...documentParams(bytes, purpose), worker });
  // A worker passed in is the caller's to end.
  const close = async () => {
    await task.destroy().catch(() => {});
    worker.destroy();
  };
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await close();
    throw openError(err);
  }
  if (purpose === 'read' && !facelessFonts(task)) {
    await close();
    throw new Error('pdf.js has no font loader where Quire expects one (see facelessFonts)');
  }
  return { doc, close };
}

/** The part of pdf.js 6.5's loading task (pinned in package.json) that installs font faces. */
interface FontLoaderHolder {
  _transport?: { fontLoader?: { bind?: unknown } };
}

/**
 * Font faces are a browser's: in Node pdf.js's loader would build a CSS rule from each font
 * (base64 through a slow polyfill) and, finding no document, ask the worker for glyph outlines
 * after all. Fonts still reach `commonObjs` with their names and styles, which is what is read.
 * Should a pdf.js update move the loader, reading fails loudly (false here) rather than slowly.
 */
function facelessFonts(task: PDFDocumentLoadingTask): boolean {
  const loader = (task as unknown as FontLoaderHolder)._transport?.fontLoader;
  if (typeof loader?.bind !== 'function') return false;
  loader.bind = () => Promise.resolve();
  return true;
}

function openError(err: unknown): ConversionError {
  const name = err instanceof Error ? err.name : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException')
    return new ConversionError(
      'ENCRYPTED_DOCUMENT',
      'The PDF is encrypted with a password; it cannot be read without it.',
    );
  if (name === 'InvalidPDFException')
    return new ConversionError('UNPARSABLE_DOCUMENT', `The file is not a readable PDF (${message}).`);
  return new ConversionError('UNPARSABLE_DOCUMENT', `The PDF could not be read: ${message}.`);
}
