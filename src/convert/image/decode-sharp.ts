import type { SharpConstructor } from 'sharp';
import type { FormatId } from '../../detect/formats.ts';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { checkPixels, type ImageSource, plausibleDpi, targetSize } from './image-source.ts';
import { tiffPages } from './tiff-pages.ts';

let sharpModule: Promise<SharpConstructor> | undefined;

/**
 * sharp (libvips) loads with the first image, so workers that never see one do without it.
 * Its operation cache would keep decoded images alive between requests, and its thread pool
 * would put several threads on a worker that already has a core of its own (as Tesseract's
 * OMP_THREAD_LIMIT=1 does): both are turned off.
 */
function loadSharp(): Promise<SharpConstructor> {
  sharpModule ??= import('sharp').then((module) => {
    const sharp = module.default;
    sharp.cache(false);
    sharp.concurrency(1);
    return sharp;
  });
  return sharpModule;
}

/** libvips' own loader names, for the format detection settled on. */
const LOADER: Partial<Record<FormatId, string>> = {
  png: 'png',
  jpeg: 'jpeg',
  tiff: 'tiff',
  gif: 'gif',
  webp: 'webp',
};

/** The first line of a libvips error, without its trailing noise, for the caller's message. */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim().slice(0, 200);
}

function damaged(label: string, error: unknown): ConversionError {
  return new ConversionError(
    'UNPARSABLE_DOCUMENT',
    `The ${label} is damaged or truncated and could not be decoded (${reason(error)}).`,
  );
}

/**
 * PNG, JPEG, TIFF, GIF and WebP through sharp. Each frame's size is read from its header
 * first (sharp's metadata call decodes no pixels), then the frame is decoded, turned upright,
 * flattened on white, made gray and resized in one libvips pipeline. `failOn: 'error'` refuses
 * truncated and corrupt pixel data while letting through the benign warnings real files carry
 * (an extra byte before a JPEG marker, a known-incorrect sRGB profile).
 */
export async function openWithSharp(
  bytes: Uint8Array,
  format: FormatId,
  label: string,
): Promise<ImageSource> {
  const sharp = await loadSharp();
  // A TIFF is handed over with its page chain cut after the pages that will be read.
  const tiff = format === 'tiff' ? tiffPages(bytes, limits.imageFrames) : undefined;
  const readable = tiff?.bytes ?? bytes;
  const input = Buffer.from(readable.buffer, readable.byteOffset, readable.byteLength);
  const options = { failOn: 'error', limitInputPixels: limits.imagePixels } as const;
  const header = async (page: number) => {
    try {
      // No pixel limit here: the header is read to say how big the frame is, checked below.
      return await sharp(input, { ...options, limitInputPixels: false, page }).metadata();
    } catch (error) {
      throw damaged(label, error);
    }
  };
  const first = await header(0);
  if (first.format !== LOADER[format])
    throw new ConversionError('UNPARSABLE_DOCUMENT', `The ${label} could not be decoded as one.`);
  checkPixels(label, first.width, first.height);
  return {
    frames: tiff?.pages ?? Math.max(1, first.pages ?? 1),
    async decode(index, zoom) {
      const meta = index === 0 ? first : await header(index);
      checkPixels(label, meta.width, meta.height);
      const upright = meta.autoOrient;
      const size = targetSize(upright.width, upright.height, zoom);
      try {
        const { data, info } = await sharp(input, { ...options, page: index, autoOrient: true })
          .resize(size.width, size.height, {
            fit: 'fill',
            kernel: size.width > upright.width ? 'cubic' : 'lanczos3',
          })
          .flatten({ background: '#ffffff' })
          .toColourspace('b-w')
          .raw({ depth: 'uchar' })
          .toBuffer({ resolveWithObject: true });
        if (info.channels !== 1) throw new Error(`${info.channels} channels after conversion to gray`);
        return {
          image: {
            width: info.width,
            height: info.height,
            pixels: new Uint8Array(data.buffer, data.byteOffset, data.length),
          },
          resample: info.width / upright.width,
          dpi: plausibleDpi(meta.density),
        };
      } catch (error) {
        throw damaged(label, error);
      }
    },
  };
}
