import { type FormatId, formatInfo } from '../../detect/formats.ts';
import { limits } from '../../limits.ts';
import type { Converter } from '../converter.ts';
import { buildTree } from '../pdf/layout/build-tree.ts';
import { dropRunningHeaders } from '../pdf/layout/running-headers.ts';
import { type LaidPage, layOutContent } from '../pdf/page-pipeline.ts';
import { openBmp } from './decode-bmp.ts';
import { openWithSharp } from './decode-sharp.ts';
import type { ImageSource } from './image-source.ts';
import { recognizeFrame } from './recognize-frame.ts';

const NO_TEXT_WARNING = 'No text was recognized in the image.';

/**
 * Raster images (PNG, JPEG, TIFF, GIF, BMP, WebP) → document model by OCR, as upstream's
 * `image` parser does: each frame is read like a scanned PDF page (the same recognition,
 * tables, layout, running-header removal and tree), so an image of a page and a scan of it
 * come out alike. A TIFF gives one page per frame, in order; an animation only its first
 * frame, as its other frames are the same picture changing, not further pages.
 */
export const convertImage: Converter = async (input) => {
  const { label, mimeTypes } = formatInfo(input.format);
  const source = await openImage(input.bytes, input.format, label);
  const warnings: string[] = [];
  const paged = input.format === 'tiff';
  const wanted = paged ? Math.min(source.frames, limits.imageFrames) : 1;
  if (source.frames > wanted)
    warnings.push(
      paged
        ? `Only the first ${wanted} of the TIFF's ${source.frames} pages were read.`
        : `The ${label} is animated: only the first of its ${source.frames} frames was read.`,
    );
  const pages: LaidPage[] = [];
  const failed: { frame: number; error: unknown }[] = [];
  for (let index = 0; index < wanted; index++) {
    try {
      pages.push(layOutContent(await recognizeFrame(source, index)));
    } catch (error) {
      // A bad frame of a TIFF costs that page, as a bad page of a PDF does; with no page read,
      // the first failure is the answer (a damaged or oversized image, or OCR unavailable).
      failed.push({ frame: index, error });
    }
  }
  // At least one frame is always wanted, so with no page read there is a first failure.
  if (pages.length === 0) throw failed[0]!.error;
  if (failed.length > 0)
    warnings.push(
      `${failed.length} of the TIFF's ${wanted} pages could not be read and were skipped (page ${failed.map((f) => f.frame + 1).join(', ')}): ${reason(failed[0]?.error)}`,
    );
  dropRunningHeaders(pages);
  const tree = buildTree(pages);
  if (tree.children.length === 0) warnings.push(NO_TEXT_WARNING);
  return {
    kind: 'document',
    tree,
    metadata: { numPages: pages.length },
    ocrPages: wanted,
    contentType: mimeTypes[0] ?? 'application/octet-stream',
    baseUrl: input.url,
    warnings,
  };
};

function openImage(bytes: Uint8Array, format: FormatId, label: string): Promise<ImageSource> {
  return format === 'bmp' ? openBmp(bytes) : openWithSharp(bytes, format, label);
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
