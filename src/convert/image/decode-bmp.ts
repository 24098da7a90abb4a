import { ConversionError } from '../converter.ts';
import { grayFromRgba } from '../pdf/ocr/gray-image.ts';
import { readBmpHeader } from './bmp-header.ts';
import { checkPixels, type ImageSource, plausibleDpi, targetSize } from './image-source.ts';

const LABEL = 'BMP image';

/**
 * BMP through @napi-rs/canvas (Skia's decoder), as the sharp build has no BMP loader. The
 * size comes from the header first; a file shorter than its uncompressed rows need is refused
 * as truncated, since Skia would fill the missing rows in silently. The frame is drawn onto a
 * white, opaque canvas at the size wanted, which flattens any alpha and resamples in one step.
 */
export async function openBmp(bytes: Uint8Array): Promise<ImageSource> {
  const header = readBmpHeader(bytes);
  checkPixels(LABEL, header.width, header.height);
  if (header.expectedBytes !== undefined && bytes.length < header.expectedBytes)
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The ${LABEL} is truncated: its ${header.width} x ${header.height} pixels need ${header.expectedBytes} bytes, the file has ${bytes.length}.`,
    );
  return {
    frames: 1,
    async decode(_index, zoom) {
      const { Image, createCanvas } = await import('@napi-rs/canvas');
      const picture = new Image();
      picture.src = bytes;
      try {
        await picture.decode();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConversionError(
          'UNPARSABLE_DOCUMENT',
          `The ${LABEL} is damaged and could not be decoded (${reason}).`,
        );
      }
      const size = targetSize(picture.width, picture.height, zoom);
      const canvas = createCanvas(size.width, size.height);
      const context = canvas.getContext('2d', { alpha: false });
      context.fillStyle = '#ffffff';
      context.fillRect(0, 0, size.width, size.height);
      context.imageSmoothingQuality = 'high';
      context.drawImage(picture, 0, 0, size.width, size.height);
      const image = grayFromRgba(canvas.data(), size.width, size.height);
      const resample = size.width / picture.width;
      // Release the RGBA backing store now rather than at the next GC.
      canvas.width = 1;
      canvas.height = 1;
      return { image, resample, dpi: plausibleDpi(header.dpi) };
    },
  };
}
