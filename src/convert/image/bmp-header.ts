import { ConversionError } from '../converter.ts';

/** What a BMP's headers say, read before any pixel is decoded. */
export interface BmpHeader {
  width: number;
  /** Rows, whichever way they are stored (a negative height in the file means top-down). */
  height: number;
  /** Dots per inch from the pixels-per-metre field, when the header has one (0 means none). */
  dpi: number | undefined;
  /** Bytes the pixel rows need when they are stored uncompressed; undefined for RLE, JPEG or PNG payloads. */
  expectedBytes: number | undefined;
}

/** BI_RGB and BI_BITFIELDS (and BI_ALPHABITFIELDS): rows stored as they are, so their size is known. */
const UNCOMPRESSED = new Set([0, 3, 6]);

/**
 * Reads the BITMAPFILEHEADER and the DIB header that follows it: the OS/2 core header (12
 * bytes, 16-bit sizes) or BITMAPINFOHEADER and its successors (40+ bytes, 32-bit sizes).
 */
export function readBmpHeader(bytes: Uint8Array): BmpHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 26)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The BMP image is truncated: its header is incomplete.');
  const dataOffset = view.getUint32(10, true);
  const dibSize = view.getUint32(14, true);
  if (dibSize === 12) {
    const width = view.getUint16(18, true);
    const height = view.getUint16(20, true);
    const bits = view.getUint16(24, true);
    return { width, height, dpi: undefined, expectedBytes: dataOffset + rowBytes(width, bits) * height };
  }
  if (bytes.length < 14 + 40)
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The BMP image is truncated: its header is incomplete.');
  const width = view.getInt32(18, true);
  const height = Math.abs(view.getInt32(22, true));
  const bits = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  const perMetre = view.getInt32(38, true);
  return {
    width,
    height,
    dpi: perMetre > 0 ? Math.round(perMetre * 0.0254) : undefined,
    expectedBytes: UNCOMPRESSED.has(compression) ? dataOffset + rowBytes(width, bits) * height : undefined,
  };
}

/** Rows are padded to whole 32-bit words. */
function rowBytes(width: number, bits: number): number {
  return Math.ceil((width * bits) / 32) * 4;
}
