import type { CellObject, Range } from '@e965/xlsx';
import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { CellFormatter, ERROR_TEXT } from './number-formats.ts';
import type { Rows } from './sheet-layout.ts';
import type { ReadWorkbook, WorkbookSheet } from './workbook.ts';
import { placeComments, putCell, rkNumber } from './workbook-parts.ts';

/**
 * Excel 97-2003 workbooks (BIFF8, [MS-XLS]) read from their Workbook stream: the globals
 * (sheets, number formats, cell styles, shared strings, 1904 dates), then each worksheet's
 * cells, merged ranges, hyperlinks and comments. Records are a 2-byte type and size, those
 * longer than 8224 bytes going on in CONTINUE records; strings split across them restart with
 * a byte saying how their characters are stored. Formulas count by their cached result.
 *
 * Every read is bounds-checked (a short record reads as zeros), the cells a stream may claim are
 * held to limits.spreadsheetCells, and a stream cut short keeps the rows before the cut.
 */

const BOF = 0x0809;
const EOF = 0x000a;
const CONTINUE = 0x003c;
const FILEPASS = 0x002f;
const DATEMODE = 0x0022;
const FORMAT = 0x041e;
const XF = 0x00e0;
const BOUNDSHEET = 0x0085;
const SST = 0x00fc;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const RSTRING = 0x00d6;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const BOOLERR = 0x0205;
const FORMULA = 0x0006;
const STRING = 0x0207;
const MERGECELLS = 0x00e5;
const HLINK = 0x01b8;
const NOTE = 0x001c;
const OBJ = 0x005d;
const TXO = 0x01b6;

export const BIFF8 = 0x0600;

/** The records read in the globals and in a worksheet; the others are passed over unread. */
const GLOBAL_RECORDS: ReadonlySet<number> = new Set([EOF, FILEPASS, DATEMODE, FORMAT, XF, BOUNDSHEET, SST]);
const SHEET_RECORDS: ReadonlySet<number> = new Set([
  LABELSST,
  LABEL,
  RSTRING,
  NUMBER,
  RK,
  MULRK,
  BOOLERR,
  FORMULA,
  STRING,
  MERGECELLS,
  HLINK,
  OBJ,
  TXO,
  NOTE,
]);

/**
 * One record's payload and the CONTINUE payloads after it, read as one sequence of bytes:
 * positions in the stream, the parts as start and end offsets (no copies).
 */
class Payload {
  private readonly s: Uint8Array;
  private readonly view: DataView;
  /** Start and end offset of each part, flat. */
  private readonly bounds: number[];
  private part = 0;
  private p: number;
  private end: number;

  constructor(s: Uint8Array, view: DataView, bounds: number[]) {
    this.s = s;
    this.view = view;
    this.bounds = bounds;
    this.p = bounds[0]!;
    this.end = bounds[1]!;
  }

  /** Bytes left in the current part. */
  private get left(): number {
    return this.end - this.p;
  }

  /** Moves to the start of the next CONTINUE record; false when there is none. */
  nextPart(): boolean {
    if (2 * (this.part + 1) >= this.bounds.length) return false;
    this.part++;
    this.p = this.bounds[2 * this.part]!;
    this.end = this.bounds[2 * this.part + 1]!;
    return true;
  }

  /** Bytes of the payload in all, its CONTINUE records included. */
  get size(): number {
    let n = 0;
    for (let i = 0; i < this.bounds.length; i += 2) n += this.bounds[i + 1]! - this.bounds[i]!;
    return n;
  }

  /** `n` bytes (fewer at the payload's end), crossing into the next part when this one ends. */
  take(n: number): Uint8Array {
    if (this.left >= n) {
      this.p += n;
      return this.s.subarray(this.p - n, this.p);
    }
    const out = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      if (this.left <= 0 && !this.nextPart()) break;
      const take = Math.min(n - got, this.left);
      out.set(this.s.subarray(this.p, this.p + take), got);
      this.p += take;
      got += take;
    }
    return got === n ? out : out.subarray(0, got);
  }

  u8(): number {
    if (this.left >= 1) return this.s[this.p++]!;
    return this.take(1)[0] ?? 0;
  }

  u16(): number {
    if (this.left >= 2) {
      const v = this.view.getUint16(this.p, true);
      this.p += 2;
      return v;
    }
    const b = this.take(2);
    return (b[0] ?? 0) | ((b[1] ?? 0) << 8);
  }

  u32(): number {
    if (this.left >= 4) {
      const v = this.view.getUint32(this.p, true);
      this.p += 4;
      return v;
    }
    return fixed(this.take(4), 4).getUint32(0, true);
  }

  f64(): number {
    if (this.left >= 8) {
      const v = this.view.getFloat64(this.p, true);
      this.p += 8;
      return v;
    }
    return fixed(this.take(8), 8).getFloat64(0, true);
  }

  skip(n: number): void {
    let rest = n;
    while (rest > 0) {
      if (this.left <= 0 && !this.nextPart()) return;
      const take = Math.min(rest, this.left);
      this.p += take;
      rest -= take;
    }
  }

  /**
   * `count` characters, one byte (Latin-1) or two (UTF-16LE) each as `wide` says; where the
   * characters run into the next part, that part starts with a new option byte.
   */
  chars(count: number, wide: boolean): string {
    let out = '';
    let rest = count;
    let twoBytes = wide;
    while (rest > 0) {
      if (this.left <= 0) {
        if (!this.nextPart()) break;
        twoBytes = (this.u8() & 1) === 1;
        continue;
      }
      const take = Math.min(rest, Math.floor(this.left / (twoBytes ? 2 : 1)));
      if (take === 0) {
        // Half a character at the end of a part: damage; what came before is kept.
        this.p = this.end;
        continue;
      }
      const slice = this.s.subarray(this.p, this.p + take * (twoBytes ? 2 : 1));
      out += twoBytes ? utf16.decode(slice) : latin1.decode(slice);
      this.p += slice.length;
      rest -= take;
    }
    return out;
  }

  /** XLUnicodeString: 2-byte count, option byte, characters. */
  unicodeString(): string {
    const count = this.u16();
    return this.chars(count, (this.u8() & 1) === 1);
  }

  /** ShortXLUnicodeString: 1-byte count, option byte, characters. */
  shortString(): string {
    const count = this.u8();
    return this.chars(count, (this.u8() & 1) === 1);
  }

  /** XLUnicodeRichExtendedString (the shared strings): formatting runs and phonetic text skipped. */
  richString(): string {
    const count = this.u16();
    const flags = this.u8();
    const runs = flags & 0x8 ? this.u16() : 0;
    const ext = flags & 0x4 ? this.u32() : 0;
    const text = this.chars(count, (flags & 1) === 1);
    this.skip(runs * 4 + ext);
    return text;
  }

  /** HyperlinkString: a 4-byte count of UTF-16 characters, the last a terminating zero. */
  hyperlinkString(): string {
    const count = this.u32();
    return utf16.decode(this.take(Math.min(count, 0x10000) * 2)).replace(/\0+$/, '');
  }

  get done(): boolean {
    return this.left <= 0 && 2 * (this.part + 1) >= this.bounds.length;
  }
}

const utf16 = new TextDecoder('utf-16le');
const latin1 = new TextDecoder('latin1');

/** A view of `n` bytes, zero-padded when fewer were left. */
function fixed(bytes: Uint8Array, n: number): DataView {
  const padded = bytes.length === n ? bytes : new Uint8Array(n);
  if (padded !== bytes) padded.set(bytes);
  return new DataView(padded.buffer, padded.byteOffset, n);
}

/**
 * The stream's records, each with its CONTINUE records joined; it ends where one would run
 * past the end of the stream. The payload is built only for the records that are read.
 */
class RecordReader {
  private readonly s: Uint8Array;
  private readonly view: DataView;
  private p = 0;
  /** Type and header offset of the current record. */
  type = 0;
  at = 0;
  private bounds: number[] = [];

  constructor(stream: Uint8Array) {
    this.s = stream;
    this.view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  }

  /** Moves to the next record; false at the end. */
  next(): boolean {
    const size = this.size(this.p);
    if (size < 0) return false;
    this.type = this.view.getUint16(this.p, true);
    this.at = this.p;
    this.bounds = [this.p + 4, this.p + 4 + size];
    this.p += 4 + size;
    for (
      let n = this.size(this.p);
      n >= 0 && this.view.getUint16(this.p, true) === CONTINUE;
      n = this.size(this.p)
    ) {
      this.bounds.push(this.p + 4, this.p + 4 + n);
      this.p += 4 + n;
    }
    return true;
  }

  get payload(): Payload {
    return new Payload(this.s, this.view, this.bounds);
  }

  /** The size of the record at `p`, or -1 when no whole record starts there. */
  private size(p: number): number {
    if (p + 4 > this.s.length) return -1;
    const size = this.view.getUint16(p + 2, true);
    return p + 4 + size > this.s.length ? -1 : size;
  }
}

const URL_MONIKER = 'e0c9ea79f9bace118c8200aa004ba90b';
const FILE_MONIKER = '0303000000000000c000000000000046';

function hex(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

/** A Hyperlink object ([MS-OSHARED] 2.3.7.1): its target URL or file, and location. */
function hyperlinkTarget(d: Payload): string | undefined {
  if (d.u32() !== 2) return undefined;
  const flags = d.u32();
  if (flags & 0x10) d.hyperlinkString(); // display name
  if (flags & 0x80) d.hyperlinkString(); // target frame (`_blank`): where to open it, not what
  let target = '';
  if ((flags & 0x101) === 0x101) target = d.hyperlinkString();
  else if ((flags & 0x101) === 0x001) {
    const clsid = hex(d.take(16));
    if (clsid === URL_MONIKER) {
      // The URL, zero-terminated, possibly followed by a serial GUID and version.
      const length = d.u32();
      target = utf16.decode(d.take(Math.min(length, 0x20000))).replace(/\0[\s\S]*$/, '');
    } else if (clsid === FILE_MONIKER) {
      const up = d.u16();
      const ansiLength = d.u32();
      const ansi = latin1.decode(d.take(Math.min(ansiLength, 0x10000))).replace(/\0+$/, '');
      d.skip(24); // endServer, versionNumber, reserved
      const unicodeSize = d.u32();
      let path = ansi.replace(/\\/g, '/');
      if (unicodeSize > 0) {
        const bytes = d.u32();
        d.u16(); // usKeyValue
        path = utf16.decode(d.take(Math.min(bytes, 0x20000)));
      }
      target = '../'.repeat(up) + path;
    } else return undefined;
  }
  const location = flags & 0x8 ? d.hyperlinkString() : '';
  if (target && location) return `${target}#${location}`;
  return target || (location ? `#${location}` : undefined);
}

interface SheetEntry {
  name: string;
  hidden: boolean;
  /** Worksheet (0), macro sheet (1), chart (2), VBA module (6). */
  kind: number;
}

interface Globals {
  /** Whether the globals substream ended with its EOF (else the stream is cut short). */
  complete: boolean;
  date1904: boolean;
  formats: Map<number, string>;
  styleFormats: number[];
  strings: string[];
  /** Sheets by the stream offset of their BOF record, in workbook order. */
  sheets: Map<number, SheetEntry>;
}

function readGlobals(records: RecordReader): Globals {
  const g: Globals = {
    complete: false,
    date1904: false,
    formats: new Map(),
    styleFormats: [],
    strings: [],
    sheets: new Map(),
  };
  while (records.next()) {
    if (!GLOBAL_RECORDS.has(records.type)) continue;
    const d = records.payload;
    switch (records.type) {
      case EOF:
        g.complete = true;
        return g;
      case FILEPASS:
        throw new ConversionError(
          'ENCRYPTED_DOCUMENT',
          'The workbook is password-protected (encrypted); remove the password and upload it again.',
        );
      case DATEMODE:
        g.date1904 = d.u16() === 1;
        break;
      case FORMAT: {
        const id = d.u16();
        g.formats.set(id, d.unicodeString());
        break;
      }
      case XF:
        d.u16(); // font
        g.styleFormats.push(d.u16());
        break;
      case BOUNDSHEET: {
        const at = d.u32();
        const hidden = (d.u8() & 3) !== 0;
        const kind = d.u8();
        g.sheets.set(at, { name: d.shortString() || 'Sheet1', hidden, kind });
        break;
      }
      case SST: {
        d.u32(); // total
        const unique = d.u32();
        for (let i = 0; i < unique && !d.done; i++) g.strings.push(d.richString());
        break;
      }
    }
  }
  return g;
}

class SheetReader {
  private readonly g: Globals;
  private readonly formatter: CellFormatter;
  private cellCount = 0;

  constructor(g: Globals) {
    this.g = g;
    this.formatter = new CellFormatter(g.formats, g.styleFormats, g.date1904);
  }

  private add(rows: Rows, r: number, c: number, style: number, cell: CellObject): void {
    if (++this.cellCount > limits.spreadsheetCells) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The workbook holds more than ${limits.spreadsheetCells} cells (limits.spreadsheetCells); it was not converted.`,
      );
    }
    this.formatter.apply(cell, style);
    putCell(rows, r, c, cell);
  }

  /** One worksheet substream, after its BOF, up to its EOF (charts embedded in it skipped). */
  read(records: RecordReader): { rows: Rows; merges: Range[]; complete: boolean } {
    const rows: Rows = [];
    const merges: Range[] = [];
    /** The text of each comment's text box (TXO), by the id of the object (OBJ) before it. */
    const texts = new Map<number, string>();
    let lastObject: number | undefined;
    let pendingFormula: { r: number; c: number; style: number } | undefined;
    let depth = 0;
    let complete = false;
    const links: { r: number; c: number; target: string }[] = [];
    const notes: { r: number; c: number; author: string; id: number }[] = [];
    while (records.next()) {
      const type = records.type;
      if (type === BOF) depth++;
      else if (type === EOF) {
        if (depth === 0) {
          complete = true;
          break;
        }
        depth--;
        continue;
      }
      if (depth > 0 || !SHEET_RECORDS.has(type)) continue;
      const d = records.payload;
      switch (type) {
        case LABELSST: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          const text = this.g.strings[d.u32()];
          if (text !== undefined) this.add(rows, r, c, style, { t: 's', v: text });
          break;
        }
        case LABEL:
        case RSTRING: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          this.add(rows, r, c, style, { t: 's', v: d.unicodeString() });
          break;
        }
        case NUMBER: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          this.add(rows, r, c, style, { t: 'n', v: d.f64() });
          break;
        }
        case RK: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          this.add(rows, r, c, style, { t: 'n', v: rkNumber(d.u32()) });
          break;
        }
        case MULRK: {
          const r = d.u16();
          const first = d.u16();
          // 6 bytes per cell between the first column and the 2-byte last column.
          const count = Math.max(0, Math.floor((d.size - 6) / 6));
          for (let i = 0; i < count; i++) {
            const style = d.u16();
            this.add(rows, r, first + i, style, { t: 'n', v: rkNumber(d.u32()) });
          }
          break;
        }
        case BOOLERR: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          const value = d.u8();
          if (d.u8() === 1)
            this.add(rows, r, c, style, { t: 'e', v: value, w: ERROR_TEXT[value] ?? '#ERROR' });
          else this.add(rows, r, c, style, { t: 'b', v: value !== 0 });
          break;
        }
        case FORMULA: {
          const [r, c, style] = [d.u16(), d.u16(), d.u16()];
          const value = fixed(d.take(8), 8);
          pendingFormula = undefined;
          // A double, or (marked by 0xFFFF in its last two bytes) a type and value.
          const kind = value.getUint16(6, true) === 0xffff ? value.getUint8(0) : -1;
          const byte = value.getUint8(2);
          if (kind === -1) this.add(rows, r, c, style, { t: 'n', v: value.getFloat64(0, true) });
          else if (kind === 0) pendingFormula = { r, c, style };
          else if (kind === 1) this.add(rows, r, c, style, { t: 'b', v: byte === 1 });
          else if (kind === 2)
            this.add(rows, r, c, style, { t: 'e', v: byte, w: ERROR_TEXT[byte] ?? '#ERROR' });
          else if (kind === 3) this.add(rows, r, c, style, { t: 's', v: '' });
          break;
        }
        case STRING:
          if (pendingFormula) {
            const { r, c, style } = pendingFormula;
            this.add(rows, r, c, style, { t: 's', v: d.unicodeString() });
            pendingFormula = undefined;
          }
          break;
        case MERGECELLS: {
          const count = d.u16();
          for (let i = 0; i < count && !d.done; i++) {
            const [r0, r1, c0, c1] = [d.u16(), d.u16(), d.u16(), d.u16()];
            merges.push({
              s: { r: Math.min(r0, r1), c: Math.min(c0, c1) },
              e: { r: Math.max(r0, r1), c: Math.max(c0, c1) },
            });
          }
          break;
        }
        case HLINK: {
          // A link over a range belongs to the cell holding the range's text: its first.
          const r = d.u16();
          d.u16();
          const c = d.u16();
          d.u16();
          d.skip(16);
          const target = hyperlinkTarget(d);
          if (target) links.push({ r, c, target });
          break;
        }
        case OBJ:
          d.skip(6); // ft, cb, ot
          lastObject = d.u16();
          break;
        case TXO:
          if (lastObject !== undefined) texts.set(lastObject, textBoxText(d));
          break;
        case NOTE: {
          const [r, c] = [d.u16(), d.u16()];
          d.u16();
          const id = d.u16();
          notes.push({ r, c, author: d.unicodeString(), id });
          break;
        }
      }
    }
    for (const { r, c, target } of links) {
      const cell = rows[r]?.[c];
      if (cell) cell.l = { Target: target };
    }
    placeComments(
      rows,
      notes.map(({ r, c, author, id }) => ({
        r,
        c,
        author,
        text: (texts.get(id) ?? '').replace(/\r\n?/g, '\n'),
      })),
    );
    return { rows, merges, complete };
  }
}

/**
 * A text box's characters (TXO, [MS-XLS] 2.4.329): their count is in the record, the
 * characters in the CONTINUE records after it, each starting with an option byte.
 */
function textBoxText(d: Payload): string {
  d.skip(10);
  const count = d.u16();
  if (count === 0 || !d.nextPart()) return '';
  return d.chars(count, (d.u8() & 1) === 1);
}

export function readBiff8(stream: Uint8Array, metadata: DocumentMetadata): ReadWorkbook {
  const records = new RecordReader(stream);
  const g = readGlobals(records);
  const reader = new SheetReader(g);
  const found = new Map<number, WorkbookSheet>();
  let complete = g.complete;
  while (records.next()) {
    if (records.type !== BOF) continue;
    const at = records.at;
    const entry = g.sheets.get(at);
    if (entry?.kind !== 0) {
      // Chart, macro and VBA module substreams, and strays: skipped to their EOF.
      let depth = 0;
      while (records.next()) {
        if (records.type === BOF) depth++;
        else if (records.type === EOF && depth-- === 0) break;
      }
      continue;
    }
    const sheet = reader.read(records);
    complete &&= sheet.complete;
    found.set(at, { name: entry.name, hidden: entry.hidden, rows: sheet.rows, merges: sheet.merges });
  }
  const sheets = [...g.sheets.entries()].map(
    ([at, entry]): WorkbookSheet =>
      found.get(at) ?? {
        name: entry.name,
        hidden: entry.hidden,
        rows: entry.kind === 0 ? undefined : [],
        merges: [],
      },
  );
  const warnings = complete
    ? []
    : ['The workbook stream is truncated or damaged; the rows before the damage were read.'];
  return { sheets, metadata, warnings };
}
