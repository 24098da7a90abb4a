import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import type { GrayImage } from '../pdf/ocr/gray-image.ts';

/** One frame of an image upload, ready for OCR. */
export interface DecodedFrame {
  /** Upright (EXIF orientation applied), flattened on white, 8-bit gray. */
  image: GrayImage;
  /** Pixels of `image` per pixel of the frame as stored: below 1 when shrunk, above when enlarged. */
  resample: number;
  /** Dots per inch the frame declares, when it declares a plausible resolution. */
  dpi: number | undefined;
}

/** An image upload opened for reading: how many frames it has and how to decode each. */
export interface ImageSource {
  /** Frames in the file: a TIFF's pages, an animation's frames; 1 for a still image. */
  frames: number;
  /**
   * Frame `index` decoded at `zoom` times its stored size, but never past
   * `limits.ocrRenderPixels`. Refuses a frame over `limits.imagePixels` by its header, before
   * decoding it; a damaged frame is UNPARSABLE_DOCUMENT.
   */
  decode(index: number, zoom: number): Promise<DecodedFrame>;
}

/**
 * Resolutions taken at their word. Outside this range the header is wrong or a placeholder
 * (0, 1, and absurd values are common), and the frame is treated as declaring none.
 */
const MIN_DPI = 36;
const MAX_DPI = 4800;

export function plausibleDpi(dpi: number | undefined): number | undefined {
  return dpi !== undefined && Number.isFinite(dpi) && dpi >= MIN_DPI && dpi <= MAX_DPI ? dpi : undefined;
}

/** Refuses a frame whose header claims more pixels than may be decoded (a decompression bomb). */
export function checkPixels(label: string, width: number, height: number): void {
  if (!(width > 0 && height > 0))
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The ${label}'s header gives no valid size (${width} x ${height}).`,
    );
  if (width * height > limits.imagePixels)
    throw new ConversionError(
      'RESOURCE_LIMIT',
      `The ${label} is ${width} x ${height} pixels (${megapixels(width * height)} megapixels); images over ${megapixels(limits.imagePixels)} megapixels are not decoded.`,
    );
}

function megapixels(pixels: number): string {
  return String(Math.round(pixels / 1e5) / 10);
}

/**
 * The size a frame is decoded at: `zoom` times its own, then shrunk to the OCR pixel cap
 * (recognition CPU grows with pixels; text still reads well well below that many).
 */
export function targetSize(width: number, height: number, zoom: number): { width: number; height: number } {
  const cap = Math.sqrt(limits.ocrRenderPixels / (width * height));
  const factor = Math.min(zoom, cap);
  return {
    width: Math.max(1, Math.round(width * factor)),
    height: Math.max(1, Math.round(height * factor)),
  };
}
