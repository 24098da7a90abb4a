import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ConversionError } from '../converter.ts';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsModule: Promise<PdfJs> | undefined;

/** pdf.js, loaded once on first use (it is large; other formats never pay for it). */
export function loadPdfJs(): Promise<PdfJs> {
  pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs').then((pdfjs) => {
    // In Node pdf.js runs its worker code in-process ("fake worker"); pointing it at the local
    // file keeps it from ever resolving a worker URL elsewhere.
    pdfjs.GlobalWorkerOptions.workerSrc = path.join(pdfjsRoot(), 'legacy/build/pdf.worker.mjs');
    return pdfjs;
  });
  return pdfjsModule;
}

function pdfjsRoot(): string {
  return path.dirname(fileURLToPath(import.meta.resolve('pdfjs-dist/package.json')));
}

/** Largest image pdf.js decodes, in pixels: a 600 dpi A3 scan is ~70 Mpx; bombs claim more. */
const MAX_IMAGE_PIXELS = 100_000_000;

export interface OpenedPdf {
  task: PDFDocumentLoadingTask;
  doc: PDFDocumentProxy;
}

/**
 * Opens the bytes with pdf.js set up for a server: cMaps and standard fonts from the package
 * on disk (without them CJK text comes out empty), no font faces, nothing fetched. (pdf.js 6
 * no longer compiles code with eval, so there is no `isEvalSupported` to turn off.)
 */
export async function openPdf(pdfjs: PdfJs, bytes: Uint8Array): Promise<OpenedPdf> {
  if (bytes.length === 0)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The PDF file is empty (0 bytes).');
  const root = pdfjsRoot();
  const task = pdfjs.getDocument({
    // pdf.js transfers (detaches) the buffer it gets; the caller's bytes stay intact.
    data: new Uint8Array(bytes),
    cMapUrl: `${root}/cmaps/`,
    cMapPacked: true,
    standardFontDataUrl: `${root}/standard_fonts/`,
    wasmUrl: `${root}/wasm/`,
    iccUrl: `${root}/iccs/`,
    disableFontFace: true,
    useSystemFonts: false,
    fontExtraProperties: true,
    disableAutoFetch: true,
    disableStream: true,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: 0,
  });
  try {
    return { task, doc: await task.promise };
  } catch (err) {
    await task.destroy().catch(() => {});
    throw openError(err);
  }
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
