import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PageContent, TextRun } from '../page-content.ts';
import { ocrImage } from './ocr-image.ts';
import { renderPageGray } from './render-page.ts';
import { withOcrSlot } from './tesseract.ts';

/**
 * A PDF page's words by OCR: the page rendered to gray (at its exact resolution, which
 * Tesseract is told), then recognized like any raster (see `ocrImage`). The recognizer slot
 * covers the render too, so one raster per slot is alive at a time.
 */
export async function ocrPage(
  page: PDFPageProxy,
  content: PageContent,
  opts: { signal?: AbortSignal },
): Promise<TextRun[]> {
  const { signal } = opts;
  return withOcrSlot(signal, async () => {
    const { image, scale } = await renderPageGray(page, signal);
    return ocrImage(image, scale, content, { signal, dpi: Math.round(scale * 72) });
  });
}
