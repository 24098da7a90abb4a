import type { ByteReader } from './byte-reader.ts';

/**
 * Inline pictures ([MS-DOC] 2.9.192 PICFAndOfficeArtData): a picture character's
 * sprmCPicLocation points into the Data stream at a PICF header followed by OfficeArt
 * records ([MS-ODRAW]) whose BLIP holds the image file. PNG and JPEG are kept (what a browser
 * shows); metafiles and bitmaps in other encodings are left out.
 */
export interface Picture {
  mime: string;
  bytes: Uint8Array;
}

const PICF_HEADER = 0x44;
const MM_SHAPEFILE = 0x66;
const SP_CONTAINER = 0xf004;
export const FBSE = 0xf007;
export const FBSE_HEADER = 36;
const BLIP_JPEG = 0xf01d;
const BLIP_JPEG_CMYK = 0xf02a;
const BLIP_PNG = 0xf01e;
/** Record instances that mean a BLIP carries a second 16-byte uid before its data. */
const TWO_UIDS = new Set([0x46b, 0x6e3, 0x6e1]);
/** Records tried per picture; a picture has a shape, one FBSE and maybe a BLIP. */
const MAX_RECORDS = 16;

/** The image in the BLIP record at `at`, when it is a PNG or JPEG. */
export function blip(data: ByteReader, at: number, end: number): Picture | undefined {
  const verInst = data.u16(at);
  const type = data.u16(at + 2);
  const size = data.u32(at + 4);
  const mime =
    type === BLIP_PNG ? 'image/png' : type === BLIP_JPEG || type === BLIP_JPEG_CMYK ? 'image/jpeg' : '';
  if (!mime) return undefined;
  const start = at + 8 + (TWO_UIDS.has(verInst >> 4) ? 32 : 16) + 1;
  const stop = Math.min(at + 8 + size, end);
  if (stop <= start || !data.has(start, stop - start)) return undefined;
  const bytes = data.slice(start, stop - start);
  const magicOk =
    mime === 'image/png' ? bytes[0] === 0x89 && bytes[1] === 0x50 : bytes[0] === 0xff && bytes[1] === 0xd8;
  return magicOk ? { mime, bytes } : undefined;
}

/** The picture at `offset` in the Data stream, or undefined when it is absent or unsupported. */
export function readPicture(data: ByteReader, offset: number): Picture | undefined {
  if (!data.has(offset, PICF_HEADER) || data.u16(offset + 4) !== PICF_HEADER) return undefined;
  const end = Math.min(offset + data.u32(offset), data.length);
  let at = offset + PICF_HEADER;
  if (data.u16(offset + 6) === MM_SHAPEFILE) at += 1 + data.u8(at);
  for (let i = 0; i < MAX_RECORDS && at + 8 <= end; i++) {
    const type = data.u16(at + 2);
    const size = data.u32(at + 4);
    if (type === FBSE) {
      const nameSize = data.u8(at + 8 + 33);
      return blip(data, at + 8 + FBSE_HEADER + nameSize, end);
    }
    if (type !== SP_CONTAINER) return blip(data, at, end);
    at += 8 + size;
  }
  return undefined;
}
