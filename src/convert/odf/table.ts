import type { Element, ElementContent } from 'hast';
import { limits } from '../../limits.ts';
import { descendant, textOf, type XmlElement } from '../package/xml.ts';

/**
 * `table:table` → an HTML table: header rows as `thead`/`th`, spans as colspan/rowspan,
 * covered cells dropped (the spanning cell stands for them), repeated rows and cells expanded
 * only up to the last one with content (a repeated empty cell is how ODF says "and the rest of
 * the row is blank", thousands of columns wide in a spreadsheet).
 */

interface Row {
  el: XmlElement;
  header: boolean;
  repeat: number;
}

export interface TableResult {
  table: Element;
  /** True when repeats would have expanded the table past limits.odfRepeatedCells and were cut. */
  truncated: boolean;
}

function count(value: string | undefined): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? n : 1;
}

function isCell(node: XmlElement): boolean {
  return node.name === 'table:table-cell' || node.name === 'table:covered-table-cell';
}

function hasContent(cell: XmlElement): boolean {
  if (cell.name === 'table:covered-table-cell') return false;
  return textOf(cell).trim() !== '' || descendant(cell, 'draw:frame') !== undefined;
}

/** Rows in order, through header-rows, row groups and rows containers at any depth. */
function collectRows(table: XmlElement): Row[] {
  const rows: Row[] = [];
  const visit = (parent: XmlElement, header: boolean): void => {
    for (const node of parent.children) {
      if (typeof node === 'string') continue;
      if (node.name === 'table:table-row') {
        rows.push({ el: node, header, repeat: count(node.attrs['table:number-rows-repeated']) });
      } else if (node.name === 'table:table-header-rows') visit(node, true);
      else if (node.name === 'table:table-rows' || node.name === 'table:table-row-group') visit(node, header);
    }
  };
  visit(table, false);
  return rows;
}

/**
 * The column just past the row's last cell with content, and how many rows that content
 * spans downwards ({0, 0} for an empty row).
 */
function extent(row: XmlElement): { width: number; depth: number } {
  let col = 0;
  let width = 0;
  let depth = 0;
  for (const node of row.children) {
    if (typeof node === 'string' || !isCell(node)) continue;
    const repeat = count(node.attrs['table:number-columns-repeated']);
    if (hasContent(node)) {
      width = col + repeat + count(node.attrs['table:number-columns-spanned']) - 1;
      depth = Math.max(depth, count(node.attrs['table:number-rows-spanned']));
    }
    col += repeat;
  }
  return { width, depth };
}

/** Cells a table may gain by expanding repeats; past it, repeats are cut (and the table marked). */
class Copies {
  left: number = limits.odfRepeatedCells;
  truncated = false;
  take(n: number): boolean {
    if (n > this.left) {
      this.truncated = true;
      return false;
    }
    this.left -= n;
    return true;
  }
}

function clone<T extends ElementContent>(node: T): T {
  if (node.type !== 'element') return { ...node };
  return { ...node, properties: { ...node.properties }, children: node.children.map(clone) };
}

export function convertTable(
  table: XmlElement,
  cellContent: (cell: XmlElement) => ElementContent[],
): TableResult {
  const rows = collectRows(table);
  let width = 0;
  // The last row to keep: the last with content, or one a cell above reaches down into.
  let lastRow = -1;
  for (let i = 0; i < rows.length; i++) {
    const used = extent(rows[i]!.el);
    width = Math.max(width, used.width);
    if (used.depth > 0) lastRow = Math.max(lastRow, Math.min(rows.length - 1, i + used.depth - 1));
  }

  const head: Element[] = [];
  const body: Element[] = [];
  const copies = new Copies();
  for (let i = 0; i <= lastRow; i++) {
    const row = rows[i]!;
    const target = row.header ? head : body;
    const tr = buildRow(row, width, cellContent, copies);
    target.push(tr);
    // Repeated rows past the last one with content never reach here; inside, each is real.
    for (let r = 1; r < row.repeat && copies.take(Math.max(1, tr.children.length)); r++)
      target.push(clone(tr));
  }
  const children: Element[] = [];
  if (head.length > 0) children.push({ type: 'element', tagName: 'thead', properties: {}, children: head });
  if (body.length > 0) children.push({ type: 'element', tagName: 'tbody', properties: {}, children: body });
  return {
    table: { type: 'element', tagName: 'table', properties: {}, children },
    truncated: copies.truncated,
  };
}

function buildRow(
  row: Row,
  width: number,
  cellContent: (cell: XmlElement) => ElementContent[],
  copies: Copies,
): Element {
  const tr: Element = { type: 'element', tagName: 'tr', properties: {}, children: [] };
  let col = 0;
  for (const node of row.el.children) {
    if (col >= width) break;
    if (typeof node === 'string' || !isCell(node)) continue;
    const repeat = count(node.attrs['table:number-columns-repeated']);
    if (node.name === 'table:covered-table-cell') {
      col += repeat;
      continue;
    }
    const properties: Element['properties'] = {};
    const colspan = count(node.attrs['table:number-columns-spanned']);
    const rowspan = count(node.attrs['table:number-rows-spanned']);
    if (colspan > 1) properties.colSpan = colspan;
    if (rowspan > 1) properties.rowSpan = rowspan;
    const cell: Element = {
      type: 'element',
      tagName: row.header ? 'th' : 'td',
      properties,
      children: cellContent(node),
    };
    tr.children.push(cell);
    const copiesWanted = Math.min(repeat, width - col) - 1;
    for (let k = 0; k < copiesWanted && copies.take(1); k++) tr.children.push(clone(cell));
    col += repeat;
  }
  return tr;
}

/** A cell holding one paragraph shows that paragraph's content, not a paragraph inside a cell. */
export function cellContent(blocks: ElementContent[]): ElementContent[] {
  const first = blocks[0];
  return blocks.length === 1 && first?.type === 'element' && first.tagName === 'p' ? first.children : blocks;
}

export const TRUNCATED_REPEATS_WARNING =
  'A table repeats its cells more often than Quire expands; the excess repeats were left out.';
