import { ConversionError } from '../converter.ts';
import type { ByteReader } from './byte-reader.ts';

/**
 * The piece table ([MS-DOC] 2.9.38 Clx, 2.8.35 PlcPcd): the document's characters, by
 * character position (CP), map to runs of bytes in the WordDocument stream, each either
 * 8-bit ANSI ("compressed") or UTF-16LE. The whole text is decoded once into one string
 * whose index is the CP (a UTF-16 code unit is one CP, as in Word).
 */
export interface Piece {
  cpStart: number;
  cpEnd: number;
  /** Byte offset of the piece's first character in the WordDocument stream. */
  fc: number;
  compressed: boolean;
  /** Paragraph/character properties the piece adds (a Prc grpprl), when any. */
  grpprl: Uint8Array | undefined;
}

export interface PieceTable {
  pieces: Piece[];
  /** The document's text; `text[cp]` is the character at CP `cp`. */
  text: string;
  truncated: boolean;
}

const ansi = new TextDecoder('windows-1252');
const utf16 = new TextDecoder('utf-16le');

function readPrcs(table: ByteReader, start: number, end: number): { prcs: Uint8Array[]; pcdtAt: number } {
  const prcs: Uint8Array[] = [];
  let at = start;
  // Each Prc takes at least 3 bytes, so the loop ends within the Clx.
  while (at < end && table.u8(at) === 0x01) {
    const size = table.i16(at + 1);
    if (size < 0) throw new ConversionError('UNPARSABLE_DOCUMENT', 'The piece table (Clx) is damaged.');
    prcs.push(table.slice(at + 3, size));
    at += 3 + size;
  }
  return { prcs, pcdtAt: at };
}

export function readPieceTable(table: ByteReader, word: ByteReader, fc: number, lcb: number): PieceTable {
  if (lcb === 0 || !table.has(fc, lcb)) {
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The document has no readable piece table (Clx).');
  }
  const { prcs, pcdtAt } = readPrcs(table, fc, fc + lcb);
  if (table.u8(pcdtAt) !== 0x02) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The piece table (Clx) is damaged: no Pcdt after the Prcs.',
    );
  }
  const plcSize = table.u32(pcdtAt + 1);
  const plc = pcdtAt + 5;
  // A PlcPcd is n+1 CPs (4 bytes) and n 8-byte PCDs.
  const n = Math.floor((Math.min(plcSize, table.length - plc) - 4) / 12);
  if (n <= 0) throw new ConversionError('UNPARSABLE_DOCUMENT', 'The piece table (Clx) is empty.');

  const pieces: Piece[] = [];
  const parts: string[] = [];
  // Real text takes at least one stream byte per character; more is pieces built to overlap.
  let budget = word.length;
  let cp = 0;
  let truncated = false;
  for (let i = 0; i < n; i++) {
    const cpStart = table.u32(plc + i * 4);
    const cpEnd = table.u32(plc + (i + 1) * 4);
    if (cpStart !== cp || cpEnd < cpStart) {
      truncated = true;
      break;
    }
    const pcd = plc + (n + 1) * 4 + i * 8;
    const fcRaw = table.u32(pcd + 2);
    const prm = table.u16(pcd + 6);
    const compressed = (fcRaw & 0x40000000) !== 0;
    const start = compressed ? (fcRaw & 0x3fffffff) / 2 : fcRaw & 0x3fffffff;
    let count = cpEnd - cpStart;
    const width = compressed ? 1 : 2;
    const available = Math.max(0, Math.floor((word.length - start) / width));
    if (count > available || count > budget) {
      count = Math.min(available, budget);
      truncated = true;
    }
    const grpprl = prm & 1 ? prcs[prm >> 1] : undefined;
    const bytes = word.slice(Math.min(start, word.length), count * width);
    parts.push(compressed ? ansi.decode(bytes) : utf16.decode(bytes));
    pieces.push({ cpStart, cpEnd: cpStart + count, fc: start, compressed, grpprl });
    budget -= count;
    cp = cpStart + count;
    if (truncated) break;
  }
  return { pieces, text: parts.join(''), truncated };
}

/** The piece holding `cp` (binary search), or undefined past the text. */
export function pieceAt(pieces: readonly Piece[], cp: number): Piece | undefined {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const p = pieces[mid]!;
    if (cp < p.cpStart) hi = mid - 1;
    else if (cp >= p.cpEnd) lo = mid + 1;
    else return p;
  }
  return undefined;
}

/** The stream byte offset of the character at `cp`. */
export function fcOf(piece: Piece, cp: number): number {
  return piece.fc + (cp - piece.cpStart) * (piece.compressed ? 1 : 2);
}
