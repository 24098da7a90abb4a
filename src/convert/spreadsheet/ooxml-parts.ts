import type { CellObject, Range } from '@e965/xlsx';
import { CLOSE, END, OPEN, scanXml, type XmlScanner } from '../package/xml-scanner.ts';
import { ERROR_CODE, serialDate } from './number-formats.ts';
import type { Rows } from './sheet-layout.ts';
import {
  decodeRange,
  decodeRef,
  type PartReaders,
  putCell,
  type RawComment,
  type SheetContext,
  type SheetLink,
  type SheetRead,
  type StyleInfo,
  unescapeOoxml,
  type WorkbookInfo,
} from './workbook-parts.ts';

/** SpreadsheetML parts (ECMA-376 Part 1, §18) read with the pull scanner. */

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}

/**
 * The text of a string item (`si`, `is`, a comment's `text`), the scanner just past its open
 * tag: plain (`t`) or rich-text runs (`r`/`t`), phonetic guides (`rPh`) left out.
 */
function richText(x: XmlScanner): string {
  if (x.empty) return '';
  const depth = x.depth - 1;
  let text = '';
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === CLOSE) {
      if (x.depth === depth) break;
    } else if (kind === OPEN) {
      if (x.name === 't') text += x.elementText();
      else if (x.name === 'rPh' || x.name === 'rPr' || x.name === 'phoneticPr') x.skipElement();
    }
  }
  return unescapeOoxml(text);
}

function workbook(bytes: Uint8Array, part: string): WorkbookInfo {
  const x = scanXml(bytes, part);
  const info: WorkbookInfo = { sheets: [], date1904: false };
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN) continue;
    if (x.name === 'workbookPr') info.date1904 = isTrue(x.attr('date1904'));
    else if (x.name === 'sheet') {
      const state = x.attr('state');
      info.sheets.push({
        name: x.attr('name') ?? '',
        hidden: state === 'hidden' || state === 'veryHidden',
        relId: x.attr('id') ?? '',
      });
    } else if (x.name === 'definedNames' || x.name === 'extLst') x.skipElement();
  }
  return info;
}

/** Children of the open element, each handed to `visit` just past its open tag. */
function eachChild(x: XmlScanner, visit: (x: XmlScanner) => void): void {
  if (x.empty) return;
  const depth = x.depth - 1;
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === CLOSE) {
      if (x.depth === depth) return;
    } else if (kind === OPEN) {
      const inner = x.depth;
      visit(x);
      // Whatever the visitor left unread of this child is skipped.
      if (x.depth === inner && x.kind === OPEN && !x.empty) x.skipElement();
    }
  }
}

function styles(bytes: Uint8Array, part: string): StyleInfo {
  const x = scanXml(bytes, part);
  const info: StyleInfo = { formats: new Map(), styleFormats: [] };
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN) continue;
    switch (x.name) {
      case 'numFmts':
        eachChild(x, (f) => {
          const id = Number(f.attr('numFmtId'));
          const code = f.attr('formatCode');
          if (f.name === 'numFmt' && Number.isInteger(id) && code !== undefined) info.formats.set(id, code);
        });
        break;
      case 'cellXfs':
        eachChild(x, (xf) => {
          if (xf.name === 'xf') info.styleFormats.push(Number(xf.attr('numFmtId') ?? 0) || 0);
        });
        break;
      // Fonts, fills, borders, cell style records and differential formats say nothing about values.
      case 'fonts':
      case 'fills':
      case 'borders':
      case 'cellStyleXfs':
      case 'cellStyles':
      case 'dxfs':
      case 'tableStyles':
      case 'colors':
      case 'extLst':
        x.skipElement();
        break;
    }
  }
  return info;
}

function strings(bytes: Uint8Array, part: string): string[] {
  const x = scanXml(bytes, part);
  const out: string[] = [];
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === OPEN && x.name === 'si') out.push(richText(x));
  }
  return out;
}

/** One `c` element's cell, the scanner just past its open tag; undefined for an empty cell. */
function readCell(x: XmlScanner, ctx: SheetContext): CellObject | undefined {
  const type = x.attr('t');
  const style = x.attr('s');
  let value: string | undefined;
  let inline: string | undefined;
  if (!x.empty) {
    const depth = x.depth - 1;
    for (let kind = x.next(); kind !== END; kind = x.next()) {
      if (kind === CLOSE) {
        if (x.depth === depth) break;
      } else if (kind === OPEN) {
        if (x.name === 'v') value = x.elementText();
        else if (x.name === 'is') inline = richText(x);
        else x.skipElement(); // formulas (their cached result is the value) and extensions
      }
    }
  }
  let cell: CellObject;
  switch (type) {
    case undefined:
    case 'n': {
      if (value === undefined || value.trim() === '') return undefined;
      cell = { t: 'n', v: Number.parseFloat(value) };
      break;
    }
    case 's': {
      if (value === undefined) return undefined;
      const text = ctx.strings[Number.parseInt(value, 10)];
      if (text === undefined) return undefined;
      cell = { t: 's', v: text };
      break;
    }
    case 'str':
      cell = { t: 's', v: unescapeOoxml(value ?? '') };
      break;
    case 'inlineStr':
      cell = { t: 's', v: inline ?? '' };
      break;
    case 'b':
      if (value === undefined) return undefined;
      cell = { t: 'b', v: isTrue(value.trim()) };
      break;
    case 'e': {
      if (value === undefined) return undefined;
      const w = value.trim();
      cell = { t: 'e', v: ERROR_CODE[w] ?? 0xff, w };
      break;
    }
    case 'd': {
      const serial = value === undefined ? undefined : serialDate(value, ctx.date1904);
      if (serial === undefined) return undefined;
      cell = { t: 'n', v: serial };
      break;
    }
    default:
      return undefined;
  }
  ctx.formatter.apply(cell, style === undefined ? 0 : Number.parseInt(style, 10) || 0);
  return cell;
}

/** The rows of `sheetData`, the scanner just past its open tag. */
function sheetData(x: XmlScanner, ctx: SheetContext, rows: Rows): void {
  if (x.empty) return;
  const depth = x.depth - 1;
  let r = -1;
  let c = -1;
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === CLOSE) {
      if (x.depth === depth) return;
      continue;
    }
    if (kind !== OPEN) continue;
    if (x.name === 'row') {
      const n = Number(x.attr('r'));
      r = Number.isInteger(n) && n >= 1 ? n - 1 : r + 1;
      c = -1;
    } else if (x.name === 'c') {
      const ref = x.attr('r');
      const at = ref === undefined ? undefined : decodeRef(ref);
      if (at) {
        r = at.r;
        c = at.c;
      } else c++;
      if (r < 0) r = 0;
      const cell = readCell(x, ctx);
      if (cell) putCell(rows, r, c, cell);
    } else x.skipElement();
  }
}

function sheet(bytes: Uint8Array, part: string, ctx: SheetContext): SheetRead {
  const x = scanXml(bytes, part);
  const rows: Rows = [];
  const merges: Range[] = [];
  const links: SheetLink[] = [];
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN) continue;
    switch (x.name) {
      case 'sheetData':
        sheetData(x, ctx, rows);
        break;
      case 'mergeCell': {
        const range = decodeRange(x.attr('ref') ?? '');
        if (range) merges.push(range);
        break;
      }
      case 'hyperlink': {
        // A link over a range belongs to the cell holding the range's text: its first.
        const range = decodeRange(x.attr('ref') ?? '');
        if (range)
          links.push({ r: range.s.r, c: range.s.c, relId: x.attr('id'), location: x.attr('location') });
        break;
      }
      case 'cols':
      case 'sheetViews':
      case 'conditionalFormatting':
      case 'dataValidations':
      case 'extLst':
        x.skipElement();
        break;
    }
  }
  return { rows, merges, links, truncated: x.truncated };
}

/** The rich text of an element's `text` children (a comment's body). */
function commentText(x: XmlScanner, rich: boolean): string {
  let text = '';
  eachChild(x, (child) => {
    if (child.name === 'text') text += rich ? richText(child) : child.elementText();
  });
  return text;
}

function comments(bytes: Uint8Array, part: string): RawComment[] {
  const x = scanXml(bytes, part);
  const authors: string[] = [];
  const out: RawComment[] = [];
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN) continue;
    if (x.name === 'author') authors.push(unescapeOoxml(x.elementText()));
    else if (x.name === 'comment') {
      const at = decodeRef(x.attr('ref') ?? '');
      const author = authors[Number(x.attr('authorId'))] ?? '';
      const text = commentText(x, true);
      if (at) out.push({ ...at, author, text });
    }
  }
  return out;
}

export const xmlParts: PartReaders = { workbook, styles, strings, sheet, comments };

/** Threaded comments (Excel 365): each with its author's person id, replies in thread order. */
export function threadedComments(bytes: Uint8Array, part: string): RawComment[] {
  const x = scanXml(bytes, part);
  const out: RawComment[] = [];
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind !== OPEN || x.name !== 'threadedComment') continue;
    const at = decodeRef(x.attr('ref') ?? '');
    const author = x.attr('personId') ?? '';
    const text = commentText(x, false);
    if (at) out.push({ ...at, author, text });
  }
  return out;
}

/** The people who wrote threaded comments: display name by person id. */
export function persons(bytes: Uint8Array, part: string): Map<string, string> {
  const x = scanXml(bytes, part);
  const out = new Map<string, string>();
  for (let kind = x.next(); kind !== END; kind = x.next()) {
    if (kind === OPEN && x.name === 'person') {
      const id = x.attr('id');
      const name = x.attr('displayName');
      if (id && name) out.set(id, name);
    }
  }
  return out;
}
