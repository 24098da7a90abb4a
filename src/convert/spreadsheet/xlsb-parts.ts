import type { CellObject, Range } from '@e965/xlsx';
import { ERROR_TEXT } from './number-formats.ts';
import type { Rows } from './sheet-layout.ts';
import type {
  PartReaders,
  RawComment,
  SheetContext,
  SheetLink,
  SheetRead,
  StyleInfo,
  WorkbookInfo,
} from './workbook-parts.ts';
import { putCell, rkNumber } from './workbook-parts.ts';

/**
 * XLSB parts: BIFF12 records ([MS-XLSB] 2.1.4), each a variable-length type (1-2 bytes of 7
 * bits) and size (1-4 bytes of 7 bits), then the payload. Only the records that carry what
 * Quire shows are decoded; a record that runs past the part's end stops the reading (a
 * truncated part keeps what precedes it).
 */

const utf16 = new TextDecoder('utf-16le');

/** A cursor over one record's payload; reads past its end give zeros and empty strings. */
class Payload {
  readonly view: DataView;
  p: number;
  readonly end: number;
  constructor(view: DataView, start: number, end: number) {
    this.view = view;
    this.p = start;
    this.end = end;
  }

  u8(): number {
    const v = this.p + 1 <= this.end ? this.view.getUint8(this.p) : 0;
    this.p += 1;
    return v;
  }

  u16(): number {
    const v = this.p + 2 <= this.end ? this.view.getUint16(this.p, true) : 0;
    this.p += 2;
    return v;
  }

  u32(): number {
    const v = this.p + 4 <= this.end ? this.view.getUint32(this.p, true) : 0;
    this.p += 4;
    return v;
  }

  f64(): number {
    const v = this.p + 8 <= this.end ? this.view.getFloat64(this.p, true) : 0;
    this.p += 8;
    return v;
  }

  /** XLWideString (a 32-bit character count, then UTF-16LE); null for the nullable form's 0xFFFFFFFF. */
  wideString(): string | null {
    const count = this.u32();
    if (count === 0xffffffff) return null;
    const bytes = Math.min(count * 2, Math.max(0, this.end - this.p));
    const s = utf16.decode(new Uint8Array(this.view.buffer, this.view.byteOffset + this.p, bytes));
    this.p += bytes;
    return s;
  }

  /** RichStr: flags, then the string; its formatting runs and phonetic guide are not read. */
  richString(): string {
    this.u8();
    return this.wideString() ?? '';
  }

  rk(): number {
    return rkNumber(this.u32());
  }

  /** RfX: first and last row, first and last column. */
  range(): Range {
    const r0 = this.u32();
    const r1 = this.u32();
    const c0 = this.u32();
    const c1 = this.u32();
    return {
      s: { r: Math.min(r0, r1), c: Math.min(c0, c1) },
      e: { r: Math.max(r0, r1), c: Math.max(c0, c1) },
    };
  }
}

/**
 * Calls `visit` with each record's type and payload; returns false when a record runs past
 * the end (the part is truncated), true at a clean end.
 */
function records(bytes: Uint8Array, visit: (type: number, payload: Payload) => void): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length;
  let p = 0;
  while (p < n) {
    let type = bytes[p++]!;
    if (type & 0x80) {
      if (p >= n) return false;
      type = (type & 0x7f) | ((bytes[p++]! & 0x7f) << 7);
    }
    let size = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (p >= n) return false;
      const b = bytes[p++]!;
      size |= (b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    const end = p + size;
    if (end > n) return false;
    visit(type, new Payload(view, p, end));
    p = end;
  }
  return true;
}

const BRT_WB_PROP = 0x0099;
const BRT_BUNDLE_SH = 0x009c;

function workbook(bytes: Uint8Array): WorkbookInfo {
  const info: WorkbookInfo = { sheets: [], date1904: false };
  records(bytes, (type, d) => {
    if (type === BRT_WB_PROP) info.date1904 = (d.u32() & 1) === 1;
    else if (type === BRT_BUNDLE_SH) {
      const state = d.u32();
      d.u32(); // iTabID
      const relId = d.wideString() ?? '';
      info.sheets.push({ name: d.wideString() ?? '', hidden: state === 1 || state === 2, relId });
    }
  });
  return info;
}

const BRT_FMT = 0x002c;
const BRT_XF = 0x002f;
const BRT_BEGIN_CELL_XFS = 0x0269;
const BRT_END_CELL_XFS = 0x026a;

function styles(bytes: Uint8Array): StyleInfo {
  const info: StyleInfo = { formats: new Map(), styleFormats: [] };
  let inCellXfs = false;
  records(bytes, (type, d) => {
    if (type === BRT_FMT) {
      const id = d.u16();
      info.formats.set(id, d.wideString() ?? '');
    } else if (type === BRT_BEGIN_CELL_XFS) inCellXfs = true;
    else if (type === BRT_END_CELL_XFS) inCellXfs = false;
    else if (type === BRT_XF && inCellXfs) {
      d.u16(); // ixfeParent
      info.styleFormats.push(d.u16());
    }
  });
  return info;
}

const BRT_SST_ITEM = 0x0013;

function strings(bytes: Uint8Array): string[] {
  const out: string[] = [];
  records(bytes, (type, d) => {
    if (type === BRT_SST_ITEM) out.push(d.richString());
  });
  return out;
}

const BRT_ROW_HDR = 0x0000;
const BRT_MERGE_CELL = 0x00b0;
const BRT_HLINK = 0x01ee;
/** Cell records: full ones carry their column, short ones (0x0c-0x12) follow the previous cell. */
const FIRST_SHORT = 0x000c;
const LAST_SHORT = 0x0012;
const BRT_CELL_RSTRING = 0x003e;

/** The value of a cell record, from after its Cell (or short Cell) header. */
function cellValue(type: number, d: Payload, ctx: SheetContext): CellObject | undefined {
  switch (type) {
    case 0x02: // BrtCellRk
    case 0x0d:
      return { t: 'n', v: d.rk() };
    case 0x05: // BrtCellReal
    case 0x09: // BrtFmlaNum
    case 0x10:
      return { t: 'n', v: d.f64() };
    case 0x03: // BrtCellError
    case 0x0b: // BrtFmlaError
    case 0x0e: {
      const code = d.u8();
      return { t: 'e', v: code, w: ERROR_TEXT[code] ?? '#ERROR' };
    }
    case 0x04: // BrtCellBool
    case 0x0a: // BrtFmlaBool
    case 0x0f:
      return { t: 'b', v: d.u8() !== 0 };
    case 0x06: // BrtCellSt
    case 0x08: // BrtFmlaString
    case 0x11:
      return { t: 's', v: d.wideString() ?? '' };
    case BRT_CELL_RSTRING:
      return { t: 's', v: d.richString() };
    case 0x07: // BrtCellIsst
    case 0x12: {
      const text = ctx.strings[d.u32()];
      return text === undefined ? undefined : { t: 's', v: text };
    }
    default:
      return undefined;
  }
}

function isCell(type: number): boolean {
  return (type >= 0x02 && type <= 0x0b) || (type >= 0x0d && type <= LAST_SHORT) || type === BRT_CELL_RSTRING;
}

function sheet(bytes: Uint8Array, _part: string, ctx: SheetContext): SheetRead {
  const rows: Rows = [];
  const merges: Range[] = [];
  const links: SheetLink[] = [];
  let r = 0;
  let c = -1;
  const complete = records(bytes, (type, d) => {
    if (type === BRT_ROW_HDR) {
      r = d.u32();
      c = -1;
    } else if (isCell(type)) {
      const short = type >= FIRST_SHORT && type <= LAST_SHORT;
      c = short ? c + 1 : d.u32();
      const style = d.u16() | (d.u8() << 16);
      d.u8(); // fPhShow
      const cell = cellValue(type, d, ctx);
      if (!cell) return;
      ctx.formatter.apply(cell, style);
      putCell(rows, r, c, cell);
    } else if (type === 0x01 || type === FIRST_SHORT) {
      // Blank cells (formatting only) still advance the column of the short cells after them.
      c = type === 0x01 ? d.u32() : c + 1;
    } else if (type === BRT_MERGE_CELL) merges.push(d.range());
    else if (type === BRT_HLINK) {
      const range = d.range();
      const relId = d.wideString() ?? undefined;
      const location = d.wideString() || undefined;
      links.push({ r: range.s.r, c: range.s.c, relId: relId || undefined, location });
    }
  });
  return { rows, merges, links, truncated: !complete };
}

const BRT_COMMENT_AUTHOR = 0x0278;
const BRT_BEGIN_COMMENT = 0x027b;
const BRT_COMMENT_TEXT = 0x027d;
const BRT_END_COMMENT = 0x027c;

function comments(bytes: Uint8Array): RawComment[] {
  const authors: string[] = [];
  const out: RawComment[] = [];
  let current: RawComment | undefined;
  records(bytes, (type, d) => {
    if (type === BRT_COMMENT_AUTHOR) authors.push(d.wideString() ?? '');
    else if (type === BRT_BEGIN_COMMENT) {
      const author = authors[d.u32()] ?? '';
      const range = d.range();
      current = { r: range.s.r, c: range.s.c, author, text: '' };
    } else if (type === BRT_COMMENT_TEXT && current) current.text = d.richString();
    else if (type === BRT_END_COMMENT && current) {
      out.push(current);
      current = undefined;
    }
  });
  return out;
}

export const binaryParts: PartReaders = { workbook, styles, strings, sheet, comments };
