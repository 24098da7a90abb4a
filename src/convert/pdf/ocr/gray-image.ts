/** An 8-bit grayscale raster, row-major, one byte per pixel (0 black, 255 white). */
export interface GrayImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/**
 * Luma from an opaque RGBA buffer (ITU-R BT.601 weights in 8-bit fixed point). Tesseract
 * binarizes internally, so gray loses nothing it uses and is a quarter of the bytes.
 */
export function grayFromRgba(rgba: Uint8Array, width: number, height: number): GrayImage {
  const count = width * height;
  const pixels = new Uint8Array(count);
  for (let i = 0, k = 0; i < count; i++, k += 4) {
    pixels[i] = ((rgba[k] ?? 0) * 77 + (rgba[k + 1] ?? 0) * 150 + (rgba[k + 2] ?? 0) * 29) >> 8;
  }
  return { width, height, pixels };
}

/**
 * A binary PGM (P5) file: the cheapest image format Tesseract reads (through Leptonica),
 * a header and the raw bytes, where PNG encoding would cost more than the recognition.
 */
export function toPgm(image: GrayImage): Buffer {
  const header = Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1');
  const out = Buffer.allocUnsafe(header.length + image.pixels.length);
  header.copy(out, 0);
  out.set(image.pixels, header.length);
  return out;
}

/** The image turned clockwise by a multiple of 90 degrees. */
export function rotateGray(image: GrayImage, degrees: 0 | 90 | 180 | 270): GrayImage {
  if (degrees === 0) return image;
  const { width: w, height: h, pixels: src } = image;
  const dst = new Uint8Array(src.length);
  if (degrees === 180) {
    for (let i = 0, j = src.length - 1; j >= 0; i++, j--) dst[j] = src[i] ?? 0;
    return { width: w, height: h, pixels: dst };
  }
  // Quarter turns swap the axes: source (x, y) lands at (h-1-y, x) clockwise, (y, w-1-x) counter.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const target = degrees === 90 ? x * h + (h - 1 - y) : (w - 1 - x) * h + y;
      dst[target] = src[row + x] ?? 0;
    }
  }
  return { width: h, height: w, pixels: dst };
}

/** The image at half size, each pixel the mean of a 2x2 block (thin strokes stay visible). */
export function halveGray(image: GrayImage): GrayImage {
  const width = Math.max(1, image.width >> 1);
  const height = Math.max(1, image.height >> 1);
  const src = image.pixels;
  const stride = image.width;
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const top = 2 * y * stride;
    const bottom = Math.min(2 * y + 1, image.height - 1) * stride;
    for (let x = 0; x < width; x++) {
      const left = 2 * x;
      const right = Math.min(left + 1, stride - 1);
      const sum =
        (src[top + left] ?? 0) +
        (src[top + right] ?? 0) +
        (src[bottom + left] ?? 0) +
        (src[bottom + right] ?? 0);
      pixels[y * width + x] = sum >> 2;
    }
  }
  return { width, height, pixels };
}
