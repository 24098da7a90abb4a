import type { CellObject, Comments, Range } from '@e965/xlsx';
import type { CellFormatter } from './number-formats.ts';
import type { Rows } from './sheet-layout.ts';

/**
 * What Quire reads from the parts of an OOXML workbook package, in either encoding: XML
 * (XLSX, XLSM; ooxml-parts.ts) or BIFF12 records (XLSB; xlsb-parts.ts). The package logic
 * around them (read-workbook-package.ts) is shared.
 */

export interface WorkbookSheetEntry {
  name: string;
  hidden: boolean;
  /** Relationship id of the sheet's part, from the workbook part. */
  relId: string;
}

export interface WorkbookInfo {
  sheets: WorkbookSheetEntry[];
  /** Serial dates count from 1904 (old Mac workbooks) rather than 1900. */
  date1904: boolean;
}

export interface StyleInfo {
  /** The workbook's own number formats by id. */
  formats: Map<number, string>;
  /** The number format id of each cell style (xf), by index. */
  styleFormats: number[];
}

/** A hyperlink anchored at a cell: a relationship (external target) and/or a location in the workbook. */
export interface SheetLink {
  r: number;
  c: number;
  relId: string | undefined;
  location: string | undefined;
}

export interface SheetRead {
  rows: Rows;
  merges: Range[];
  links: SheetLink[];
  /** Set when the part ended early (damaged or truncated) and only the rows before were read. */
  truncated: boolean;
}

export interface RawComment {
  r: number;
  c: number;
  author: string;
  text: string;
}

export interface SheetContext {
  strings: readonly string[];
  formatter: CellFormatter;
  date1904: boolean;
}

/** One encoding's readers; each takes the part's inflated bytes. */
export interface PartReaders {
  workbook(bytes: Uint8Array, part: string): WorkbookInfo;
  styles(bytes: Uint8Array, part: string): StyleInfo;
  strings(bytes: Uint8Array, part: string): string[];
  sheet(bytes: Uint8Array, part: string, ctx: SheetContext): SheetRead;
  comments(bytes: Uint8Array, part: string): RawComment[];
}

/**
 * Comments into their cells (as SheetJS shapes them: `c` on the cell, a stub cell where the
 * commented cell is empty). A cell with threaded comments shows those only: Excel keeps a
 * legacy copy of each thread for older readers.
 */
export function placeComments(
  rows: Rows,
  legacy: readonly RawComment[],
  threaded: readonly RawComment[] = [],
): void {
  const threadedCells = new Set(threaded.map((t) => `${t.r},${t.c}`));
  const place = (comment: RawComment, isThreaded: boolean): void => {
    let cell: CellObject | undefined = rows[comment.r]?.[comment.c];
    if (!cell) {
      cell = { t: 'z' };
      putCell(rows, comment.r, comment.c, cell);
    }
    cell.c ??= [] as unknown as Comments;
    cell.c.push({ a: comment.author, t: comment.text, T: isThreaded });
  };
  for (const comment of legacy) if (!threadedCells.has(`${comment.r},${comment.c}`)) place(comment, false);
  for (const comment of threaded) place(comment, true);
}

/** Rows as arrays of cells, each row created on its first cell. */
export function putCell(rows: Rows, r: number, c: number, cell: CellObject): void {
  let row = rows[r];
  if (row === undefined) {
    row = [];
    rows[r] = row;
  }
  row[c] = cell;
}

/** `_xHHHH_` escapes (OOXML's way of storing characters XML cannot hold), `_x005F_` being `_`. */
export function unescapeOoxml(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9a-fA-F]{4})_/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** An A1-style reference's row and column (0-based), or undefined when it is not one. */
export function decodeRef(ref: string, from = 0, to = ref.length): { r: number; c: number } | undefined {
  let i = from;
  if (ref.charCodeAt(i) === 0x24 /* $ */) i++;
  let c = 0;
  const colStart = i;
  for (; i < to; i++) {
    const ch = ref.charCodeAt(i) | 0x20;
    if (ch < 0x61 || ch > 0x7a) break;
    c = c * 26 + (ch - 0x60);
  }
  if (i === colStart || i - colStart > 7) return undefined;
  if (ref.charCodeAt(i) === 0x24) i++;
  let r = 0;
  const rowStart = i;
  for (; i < to; i++) {
    const d = ref.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return undefined;
    r = r * 10 + d;
  }
  if (i === rowStart || r === 0 || i - rowStart > 10) return undefined;
  return { r: r - 1, c: c - 1 };
}

/** `A1:C3` (or a single cell) as a range. */
export function decodeRange(ref: string): Range | undefined {
  const colon = ref.indexOf(':');
  const s = decodeRef(ref, 0, colon === -1 ? ref.length : colon);
  if (!s) return undefined;
  const e = colon === -1 ? s : decodeRef(ref, colon + 1);
  if (!e) return undefined;
  return {
    s: { r: Math.min(s.r, e.r), c: Math.min(s.c, e.c) },
    e: { r: Math.max(s.r, e.r), c: Math.max(s.c, e.c) },
  };
}

/** Where an RkNumber's 30 bits become a double's high bits. */
const rkScratch = new DataView(new ArrayBuffer(8));

/**
 * An RkNumber (BIFF8 and BIFF12): a 30-bit integer or the high 30 bits of a double, divided
 * by 100 when its lowest bit says so.
 */
export function rkNumber(raw: number): number {
  let value: number;
  if (raw & 2) value = raw >> 2;
  else {
    rkScratch.setUint32(0, 0, true);
    rkScratch.setUint32(4, raw & 0xfffffffc, true);
    value = rkScratch.getFloat64(0, true);
  }
  return raw & 1 ? value / 100 : value;
}
