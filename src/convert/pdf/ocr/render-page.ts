import { createCanvas } from '@napi-rs/canvas';
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { limits } from '../../../limits.ts';
import { type GrayImage, grayFromRgba } from './gray-image.ts';

/**
 * Render resolution. Tesseract's LSTM rescales each text line to a fixed height, so beyond
 * ~150 dpi more pixels mostly cost time: on the scanned corpus 200 dpi read the same words
 * as 300 dpi (and 120 dpi nearly so) for 30% less recognition CPU and a cheaper render.
 */
export const OCR_DPI = 200;

type RenderParameters = Parameters<PDFPageProxy['render']>[0];

export interface RenderedPage {
  image: GrayImage;
  /** Pixels per PDF point, to map word boxes back to the page frame. */
  scale: number;
}

/**
 * Renders the page (with its /Rotate applied, like the text layer's frame) to grayscale at
 * `OCR_DPI`, or lower when the page is so large that the raster would pass the pixel cap.
 */
export async function renderPageGray(page: PDFPageProxy, signal?: AbortSignal): Promise<RenderedPage> {
  const unit = page.getViewport({ scale: 1 });
  const area = Math.max(1, unit.width * unit.height);
  const scale = Math.min(OCR_DPI / 72, Math.sqrt(limits.ocrRenderPixels / area));
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const canvas = createCanvas(width, height);
  // No alpha: pdf.js paints the white page first, and opaque pixels read back as plain RGBA.
  const context = canvas.getContext('2d', { alpha: false });
  const task = page.render({
    canvas: null,
    canvasContext: context as unknown as RenderParameters['canvasContext'],
    viewport,
  });
  const cancel = () => task.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  // pdf.js renders in short slices between which the timer can fire: a page whose drawing
  // never ends (millions of operators) is given up like a recognition that never ends.
  const timer = setTimeout(cancel, limits.ocrPageMs);
  try {
    signal?.throwIfAborted();
    await task.promise;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
    page.cleanup();
  }
  signal?.throwIfAborted();
  const image = grayFromRgba(canvas.data(), width, height);
  // Release the RGBA backing store now rather than at the next GC.
  canvas.width = 1;
  canvas.height = 1;
  return { image, scale };
}
