import { limits } from '../../limits.ts';
import { type Numbering, readShapeNumbering } from './numbering.ts';
import { type PptRecord, type RecordReader, RT } from './records.ts';
import { readTextGroups, TEXT_TYPE, type TextGroup } from './text-group.ts';

/**
 * A slide's or notes page's drawing (PPDrawing → [MS-ODRAW] OfficeArtDgContainer):
 * the shape tree in z-order, which is also the order PowerPoint's outline and text export use.
 * A shape's text sits in its ClientTextbox, or in the SlideListWithText when the ClientTextbox
 * holds an OutlineTextRefAtom (the n-th text of that slide). A group whose shape properties
 * carry the table flag is a table: its cells are child rectangles positioned on a grid.
 */
export type DrawingItem =
  | { kind: 'text'; group: TextGroup }
  | { kind: 'table'; cells: TableCellShape[] }
  | { kind: 'picture'; pib: number; alt: string };

export interface TableCellShape {
  left: number;
  top: number;
  right: number;
  bottom: number;
  groups: TextGroup[];
}

export interface DrawingSource {
  reader: RecordReader;
  hyperlinks: Map<number, string>;
  /** The slide's n-th SlideListWithText text, for OutlineTextRefAtom. */
  outlineText(index: number): TextGroup | undefined;
  /** Called when groups nest deeper than limits.pptShapeDepth and are left out. */
  tooDeep(): void;
}

/** FSP flags ([MS-ODRAW]). */
const FSP_DELETED = 0x8;
const FSP_BACKGROUND = 0x400;
const SHAPE_LINE = 20;
/** Shape properties: the table flag ([MS-ODRAW] groupShape tableProperties) and WordArt text. */
const PID_TABLE_PROPERTIES = 0x039f;
const PID_GTEXT_UNICODE = 0x00c0;
const PID_PIB = 0x0104;
const PID_DESCRIPTION = 0x0381;
const OPID_COMPLEX = 0x8000;
const OPID_PID = 0x3fff;
/** Header, footer, date and slide-number placeholders repeat boilerplate on every page. */
const BOILERPLATE_PLACEHOLDERS = new Set([0x07, 0x08, 0x09, 0x0a]);
const utf16 = new TextDecoder('utf-16le');

interface Shape {
  skip: boolean;
  isTable: boolean;
  isLine: boolean;
  anchor: [left: number, top: number, right: number, bottom: number] | undefined;
  groups: TextGroup[];
  /** The picture's BLIP store index, and its alt text. */
  pib: number;
  alt: string;
}

/** The table flag, picture, alt text and WordArt text from a property table (FOPT or tertiary). */
function readProperties(source: DrawingSource, rec: PptRecord, shape: Shape, wordArt: TextGroup[]): void {
  const r = source.reader.r;
  const count = rec.instance;
  let complex = rec.body + count * 6;
  for (let i = 0; i < count && rec.body + i * 6 + 6 <= rec.end; i++) {
    const opid = r.u16(rec.body + i * 6);
    const value = r.u32(rec.body + i * 6 + 2);
    const pid = opid & OPID_PID;
    if (pid === PID_TABLE_PROPERTIES && (value & 1) === 1) shape.isTable = true;
    if (pid === PID_PIB && !(opid & OPID_COMPLEX)) shape.pib = value;
    if (opid & OPID_COMPLEX) {
      if (pid === PID_DESCRIPTION && complex + value <= rec.end) {
        shape.alt = utf16.decode(r.slice(complex, value)).replace(/\0+$/, '').trim();
      }
      if (pid === PID_GTEXT_UNICODE && complex + value <= rec.end) {
        const text = utf16.decode(r.slice(complex, value)).replace(/\0+$/, '');
        if (text.trim())
          wordArt.push({ type: TEXT_TYPE.other, text, style: undefined, links: [], numbering: [] });
      }
      complex += value;
    }
  }
}

function readShape(source: DrawingSource, sp: PptRecord): Shape {
  const { reader } = source;
  const r = reader.r;
  const shape: Shape = {
    skip: false,
    isTable: false,
    isLine: false,
    anchor: undefined,
    groups: [],
    pib: 0,
    alt: '',
  };
  const wordArt: TextGroup[] = [];
  /** Groups of the shape's own ClientTextbox, which its numbering applies to. */
  const own: TextGroup[] = [];
  let numbering: Numbering[] = [];
  for (const rec of reader.children(sp)) {
    const size = rec.end - rec.body;
    switch (rec.type) {
      case RT.fsp:
        shape.isLine = rec.instance === SHAPE_LINE;
        if (size >= 8 && r.u32(rec.body + 4) & (FSP_DELETED | FSP_BACKGROUND)) shape.skip = true;
        break;
      case RT.fopt:
      case RT.tertiaryFopt:
        readProperties(source, rec, shape, wordArt);
        break;
      case RT.childAnchor:
        if (size >= 16)
          shape.anchor = [r.i32(rec.body), r.i32(rec.body + 4), r.i32(rec.body + 8), r.i32(rec.body + 12)];
        break;
      case RT.clientAnchor:
        if (size >= 16)
          shape.anchor = [r.i32(rec.body + 4), r.i32(rec.body), r.i32(rec.body + 8), r.i32(rec.body + 12)];
        else if (size >= 8)
          shape.anchor = [r.i16(rec.body + 2), r.i16(rec.body), r.i16(rec.body + 4), r.i16(rec.body + 6)];
        break;
      case RT.clientData: {
        numbering = readShapeNumbering(reader, rec);
        const placeholder = reader.child(rec, RT.oePlaceholderAtom);
        if (placeholder && placeholder.end - placeholder.body >= 5) {
          if (BOILERPLATE_PLACEHOLDERS.has(r.u8(placeholder.body + 4))) shape.skip = true;
        }
        break;
      }
      case RT.clientTextbox: {
        const children = reader.children(rec);
        for (const group of readTextGroups(reader, children, source.hyperlinks)) {
          own.push(group);
          shape.groups.push(group);
        }
        for (const child of children) {
          if (child.type === RT.outlineTextRefAtom && child.end - child.body >= 4) {
            const group = source.outlineText(r.u32(child.body));
            if (group) shape.groups.push(group);
          }
        }
        break;
      }
    }
  }
  for (const group of own) group.numbering = numbering;
  // WordArt keeps its text in a property; a text box's own text wins when it has both.
  if (!shape.groups.some((g) => g.text.trim())) for (const group of wordArt) shape.groups.push(group);
  return shape;
}

function walkGroup(source: DrawingSource, group: PptRecord, depth: number, out: DrawingItem[]): void {
  const children = source.reader.children(group);
  const own = children[0]?.type === RT.spContainer ? readShape(source, children[0]) : undefined;
  if (own?.skip) return;
  if (own?.isTable) {
    const cells: TableCellShape[] = [];
    for (const child of children.slice(1)) {
      if (child.type !== RT.spContainer) continue;
      const cell = readShape(source, child);
      if (cell.skip || cell.isLine || !cell.anchor) continue;
      const [left, top, right, bottom] = cell.anchor;
      cells.push({ left, top, right, bottom, groups: cell.groups });
    }
    out.push({ kind: 'table', cells });
    return;
  }
  for (const child of own ? children.slice(1) : children) {
    if (child.type === RT.spgrContainer) {
      if (depth < limits.pptShapeDepth) walkGroup(source, child, depth + 1, out);
      else source.tooDeep();
    } else if (child.type === RT.spContainer) {
      const shape = readShape(source, child);
      if (shape.skip) continue;
      if (shape.pib > 0) out.push({ kind: 'picture', pib: shape.pib, alt: shape.alt });
      for (const g of shape.groups) out.push({ kind: 'text', group: g });
    }
  }
}

/** The text and tables of a PPDrawing, in drawing order. */
export function readDrawing(source: DrawingSource, ppDrawing: PptRecord): DrawingItem[] {
  const out: DrawingItem[] = [];
  const dg = source.reader.child(ppDrawing, RT.dgContainer);
  const root = dg && source.reader.child(dg, RT.spgrContainer);
  if (root) walkGroup(source, root, 0, out);
  return out;
}
