import { limits } from '../limits.ts';
import { bomEncoding, bomlessUtf16 } from '../text/decode.ts';
import { classifyText, type TextKind } from './classify-text.ts';
import type { FormatId } from './formats.ts';
import { listZip } from './zip-entries.ts';

/** What the bytes themselves say a file is. */
export type Sniffed =
  | { kind: 'format'; format: FormatId }
  /** A container that holds several formats whose members we could not tell apart. */
  | { kind: 'container'; container: 'zip' | 'ole' }
  | { kind: 'text'; looks: TextKind }
  | { kind: 'binary' };

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  return magic.every((b, i) => bytes[at + i] === b);
}

function indexOfAscii(bytes: Uint8Array, needle: string, within: number): number {
  const window = bytes.subarray(0, Math.min(bytes.length, within + needle.length));
  return Buffer.from(window.buffer, window.byteOffset, window.byteLength).indexOf(needle, 0, 'latin1');
}

function sniffZip(bytes: Uint8Array): Sniffed {
  const listing = listZip(bytes);
  if (!listing) return { kind: 'container', container: 'zip' };
  const odf: Record<string, FormatId> = {
    'application/vnd.oasis.opendocument.text': 'odt',
    'application/vnd.oasis.opendocument.spreadsheet': 'ods',
    'application/vnd.oasis.opendocument.presentation': 'odp',
    'application/epub+zip': 'epub',
  };
  const byMime = listing.mimetype ? odf[listing.mimetype] : undefined;
  if (byMime) return { kind: 'format', format: byMime };
  const has = (name: string) => listing.names.includes(name);
  const under = (prefix: string) => listing.names.some((n) => n.startsWith(prefix));
  const macros = (part: string) => has(`${part}/vbaProject.bin`);
  if (under('word/')) return { kind: 'format', format: macros('word') ? 'docm' : 'docx' };
  if (has('xl/workbook.bin')) return { kind: 'format', format: 'xlsb' };
  if (under('xl/')) return { kind: 'format', format: macros('xl') ? 'xlsm' : 'xlsx' };
  if (under('ppt/')) return { kind: 'format', format: macros('ppt') ? 'pptm' : 'pptx' };
  if (has('META-INF/container.xml')) return { kind: 'format', format: 'epub' };
  return { kind: 'container', container: 'zip' };
}

/** Text when there are no NUL bytes (UTF-16 aside) and few control characters. */
function sniffText(bytes: Uint8Array): Sniffed {
  const window = bytes.subarray(0, limits.sniffBytes);
  const bom = bomEncoding(window)?.encoding;
  const utf16 = bom?.startsWith('utf-16') ? bom : bomlessUtf16(window);
  if (!utf16) {
    let control = 0;
    for (const b of window) {
      if (b === 0) return { kind: 'binary' };
      if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
    }
    if (control > window.length / 10) return { kind: 'binary' };
  }
  const head = new TextDecoder(utf16 ?? 'latin1').decode(window);
  return { kind: 'text', looks: classifyText(head, window.length === bytes.length) };
}

const latin1 = (bytes: Uint8Array, from: number, to: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, Math.min(bytes.length, to) - from)).toString(
    'latin1',
  );

/** BITMAPINFOHEADER and its successors (and the OS/2 core header): the sizes a real BMP has. */
const BMP_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

/**
 * Raster images by their signatures. BMP's two-letter `BM` is too weak alone (a text file may
 * start with it), so its reserved bytes must be zero and its header size a real one.
 */
function sniffImage(bytes: Uint8Array): FormatId | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  const head = latin1(bytes, 0, 12);
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'gif';
  if (head.startsWith('II*\0') || head.startsWith('MM\0*')) return 'tiff';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'webp';
  if (
    head.startsWith('BM') &&
    bytes.length >= 18 &&
    bytes[6] === 0 &&
    bytes[7] === 0 &&
    bytes[8] === 0 &&
    bytes[9] === 0 &&
    BMP_HEADER_SIZES.has(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32LE(14))
  )
    return 'bmp';
  return undefined;
}

/** BOF record type → the BIFF version it starts, the record's sizes, and the version fields writers put in it. */
const BIFF_BOF = new Map<number, { biff: 2 | 3 | 4 | 5 | 8; sizes: number[]; versions: number[] }>([
  [0x0009, { biff: 2, sizes: [4], versions: [0x0000, 0x0002, 0x0007, 0x0200] }],
  [0x0209, { biff: 3, sizes: [6], versions: [0x0000, 0x0003, 0x0300] }],
  [0x0409, { biff: 4, sizes: [6], versions: [0x0000, 0x0004, 0x0400] }],
  [0x0809, { biff: 5, sizes: [8, 16], versions: [0x0500, 0x0600] }],
]);
/** BOF sheet types: workbook globals, VB module, worksheet, chart, macro sheet, BIFF4 workbook. */
const BIFF_SHEET_TYPES = new Set([0x0005, 0x0006, 0x0010, 0x0020, 0x0040, 0x0100]);

/**
 * The BIFF version of an Excel stream stored as the file itself, without an OLE container:
 * what Excel 2.x, 3.0 and 4.0 saved (BIFF2, BIFF3, BIFF4 worksheets), and what some tools
 * write of later versions. Such a file starts with a BOF record whose type names the version,
 * whose size is that version's, and whose version and sheet-type fields hold values Excel
 * writes; text and other binaries do not start so.
 */
export function rawBiffVersion(bytes: Uint8Array): 2 | 3 | 4 | 5 | 8 | undefined {
  if (bytes.length < 8) return undefined;
  const u16 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8);
  const bof = BIFF_BOF.get(u16(0));
  const size = u16(2);
  const version = u16(4);
  if (!bof?.sizes.includes(size) || !bof.versions.includes(version) || bytes.length < 4 + size)
    return undefined;
  if (!BIFF_SHEET_TYPES.has(u16(6))) return undefined;
  return bof.biff === 5 && version === 0x0600 ? 8 : bof.biff;
}

export function sniff(bytes: Uint8Array): Sniffed {
  const image = sniffImage(bytes);
  if (image) return { kind: 'format', format: image };
  // The PDF header may follow junk; readers accept it within the first 1 KB.
  if (indexOfAscii(bytes, '%PDF-', 1024) >= 0) return { kind: 'format', format: 'pdf' };
  if (startsWith(bytes, OLE_MAGIC)) return { kind: 'container', container: 'ole' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return sniffZip(bytes);
  if (indexOfAscii(bytes, '{\\rtf', 8) >= 0) return { kind: 'format', format: 'rtf' };
  if (rawBiffVersion(bytes) !== undefined) return { kind: 'format', format: 'xls' };
  return sniffText(bytes);
}
