import type { Element, ElementContent } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { toText } from 'hast-util-to-text';
import type { Nodes, PhrasingContent, RootContent, Table, TableCell, TableRow } from 'mdast';
import { wrap } from './mdast-flow.ts';

/**
 * Spans are repeated into the cells they cover (what a reader of a GFM table expects), and
 * short rows are padded to the table's width. Both are bounded by bytes, not by cell counts:
 * a few kilobytes of `colspan=1000` or one very wide row over thousands of short ones would
 * otherwise make megabytes of Markdown. Repeating spans may cost at most `GRID_GROWTH` times
 * the table's own cells (each its text and a separator), else each cell takes one slot; a
 * grid still past that is no data table, and its cells are rendered as flow.
 * HTML caps colspan at 1000; rowspan never runs past the table's last row.
 */
const MAX_COLSPAN = 1000;
const GRID_GROWTH = 4;
/** Small tables may grow more than that: a 3-cell header spanning 40 columns is fine. */
const GRID_SLACK_BYTES = 16 * 1024;
/** What one slot of a GFM row costs besides its text: `| ` and a space. */
const SLOT_BYTES = 3;

interface Rows {
  caption: Element | undefined;
  rows: Element[];
}

function isElement(node: ElementContent, tagName?: string): node is Element {
  return node.type === 'element' && (tagName === undefined || node.tagName === tagName);
}

/** The table's rows in display order (thead, body rows, tfoot), and its caption. */
function tableRows(table: Element): Rows {
  let caption: Element | undefined;
  const head: Element[] = [];
  const body: Element[] = [];
  const foot: Element[] = [];
  for (const child of table.children) {
    if (!isElement(child)) continue;
    switch (child.tagName) {
      case 'caption':
        caption ??= child;
        break;
      case 'tr':
        body.push(child);
        break;
      case 'thead':
      case 'tbody':
      case 'tfoot': {
        const target = child.tagName === 'thead' ? head : child.tagName === 'tfoot' ? foot : body;
        for (const row of child.children) if (isElement(row, 'tr')) target.push(row);
        break;
      }
    }
  }
  return { caption, rows: [...head, ...body, ...foot] };
}

function cellsOf(row: Element): Element[] {
  return row.children.filter(
    (c): c is Element => c.type === 'element' && (c.tagName === 'td' || c.tagName === 'th'),
  );
}

function span(value: unknown, max: number): number {
  const n = typeof value === 'number' ? value : Number.parseInt(String(value ?? ''), 10);
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(Math.floor(n), max);
}

function isMerged(cell: Element): boolean {
  return span(cell.properties.colSpan, 2) > 1 || span(cell.properties.rowSpan, 2) > 1;
}

function hasNestedTable(cells: readonly Element[]): boolean {
  const stack: ElementContent[] = [...cells];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (node.tagName === 'table') return true;
    // One at a time: a cell may hold more children than a call takes arguments.
    for (const child of node.children) stack.push(child);
  }
  return false;
}

/** WAI-ARIA roles by which an author says a table only lays things out. */
const LAYOUT_ROLES = new Set(['presentation', 'none']);
/**
 * A cell with this much text (non-space characters, about six lines) is a region of the page
 * (an article column, a forum post, a note beside its icon), not one datum of a record.
 */
const REGION_TEXT = 400;
/** Blocks that make a cell a region of its own when it holds several of them (headings count too). */
const CELL_BLOCKS = new Set(['p', 'ul', 'ol', 'dl', 'blockquote', 'pre', 'form']);
const HEADINGS = /^h[1-6]$/;
const SPACE = /\s/g;

/** Non-space characters of an element's text, counted once per element for all the tables around it. */
const textLengths = new WeakMap<Element, number>();

function textLength(el: Element): number {
  const known = textLengths.get(el);
  if (known !== undefined) return known;
  // Post-order without recursion: a layout table's cells hold tables many levels deep.
  const stack: Array<{ el: Element; index: number; sum: number }> = [{ el, index: 0, sum: 0 }];
  let result = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const child = top.el.children[top.index++];
    if (child === undefined) {
      stack.pop();
      textLengths.set(top.el, top.sum);
      const parent = stack[stack.length - 1];
      if (parent) parent.sum += top.sum;
      else result = top.sum;
    } else if (child.type === 'text') {
      top.sum += child.value.length - (child.value.match(SPACE)?.length ?? 0);
    } else if (child.type === 'element') {
      const cached = textLengths.get(child);
      if (cached !== undefined) top.sum += cached;
      else stack.push({ el: child, index: 0, sum: 0 });
    }
  }
  return result;
}

/** What a cell holds, its nested tables seen from outside (they are judged on their own). */
interface CellShape {
  text: number;
  blocks: number;
  heading: boolean;
  table: boolean;
}

function shapeOf(cell: Element): CellShape {
  const shape: CellShape = { text: textLength(cell), blocks: 0, heading: false, table: false };
  const stack: ElementContent[] = [...cell.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (node.tagName === 'table') {
      shape.table = true;
      continue;
    }
    const heading = HEADINGS.test(node.tagName);
    if (heading) shape.heading = true;
    if (heading || CELL_BLOCKS.has(node.tagName)) shape.blocks++;
    for (const child of node.children) stack.push(child);
  }
  return shape;
}

/**
 * A region of the page rather than a datum: long prose, or, in a table without a header row,
 * structure a table cell cannot hold. Under column names, a heading and a list in a cell are
 * the parts of one record's field (an option's name and description, its values).
 */
function isRegion(shape: CellShape, header: boolean): boolean {
  if (shape.text >= REGION_TEXT) return true;
  return !header && (shape.blocks >= 3 || (shape.heading && shape.blocks >= 2));
}

/** A header row or caption says the table is read as records under column names. */
function hasHeader(table: Element, rows: Rows, cellRows: Element[][]): boolean {
  if (rows.caption && textLength(rows.caption) > 0) return true;
  if (String(table.properties.summary ?? '').trim() !== '') return true;
  if (table.children.some((c) => isElement(c, 'thead') && c.children.some((r) => isElement(r, 'tr'))))
    return true;
  return cellRows.some((cells) => cells.some((cell) => cell.tagName === 'th'));
}

/**
 * Whether a web page's table lays the page out rather than holding data, by evidence (the
 * signals of Readability's data-table test, and what the cells hold):
 * - the author says so (`role="presentation"`);
 * - cells that are regions of the page (long prose, several blocks, a heading over text) hold
 *   most of its text: GFM would squeeze each region into one line of a cell;
 * - it holds tables, unless it reads as records: a header over rows of short cells, one of
 *   which holds a small table (that table's text then goes inline into its cell);
 * - it is one row or one column without a header: side-by-side boxes or a stack of them.
 */
function isLayout(table: Element, rows: Rows, cellRows: Element[][]): boolean {
  if (LAYOUT_ROLES.has(String(table.properties.role ?? '').toLowerCase())) return true;
  const header = hasHeader(table, rows, cellRows);
  const shapes = cellRows.flat().map(shapeOf);
  let total = 0;
  let inRegions = 0;
  for (const shape of shapes) {
    total += shape.text;
    if (isRegion(shape, header)) inRegions += shape.text;
  }
  if (inRegions > 0 && inRegions * 2 >= total) return true;
  const width = cellRows.reduce((w, cells) => Math.max(w, cells.length), 0);
  const oneLine = cellRows.filter((cells) => cells.length > 0).length < 2 || width < 2;
  if (shapes.some((shape) => shape.table))
    return !header || oneLine || shapes.some((shape) => isRegion(shape, header));
  return oneLine && !header;
}

/**
 * Flow content squeezed into one table cell: blocks and hard breaks become spaces (a `<br>`
 * would end the row for many Markdown readers), list items keep their marker, code becomes
 * inline code.
 */
function flattenCell(nodes: readonly Nodes[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  const space = () => out.push({ type: 'text', value: ' ' });
  const visit = (list: readonly Nodes[]) => {
    for (const node of list) {
      switch (node.type) {
        case 'paragraph':
        case 'heading':
          space();
          visit(node.children);
          space();
          break;
        case 'list': {
          let n = typeof node.start === 'number' ? node.start : 1;
          for (const item of node.children) {
            const marker = node.ordered ? `${n++}. ` : '- ';
            const check = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
            out.push({ type: 'text', value: ` ${marker}${check}` });
            visit(item.children);
          }
          space();
          break;
        }
        case 'code':
          space();
          if (node.value.trim())
            out.push({ type: 'inlineCode', value: node.value.replace(/\s*\n\s*/g, ' ') });
          space();
          break;
        case 'blockquote':
        case 'listItem':
        case 'root':
        case 'table':
        case 'tableRow':
        case 'tableCell':
          visit(node.children);
          break;
        case 'thematicBreak':
        case 'break':
          space();
          break;
        case 'definition':
        case 'footnoteDefinition':
        case 'yaml':
          break;
        default:
          out.push(node as PhrasingContent);
      }
    }
  };
  visit(nodes);
  return out;
}

/** What the table conversion needs from the hast → mdast walk around it (hast-to-mdast.ts). */
export interface TableState {
  /** Set while cell contents are converted. */
  inTable: boolean;
  /** The converted children of a table part (all of them are blocks: table, caption, td, th). */
  all(parent: Element): RootContent[];
  /** The table with its whitespace collapsed as in the converted text, for the HTML fallback. */
  minified(table: Element): Element;
}

function flowOf(state: TableState, table: Element, rows: Rows): RootContent[] {
  const out: RootContent[] = [];
  if (rows.caption) out.push(...wrap(state.all(rows.caption)));
  // A row's cells read on as one line, never glued: "a" and "b" in two cells are not "ab".
  for (const row of rows.rows) {
    const nodes: RootContent[] = [];
    for (const cell of cellsOf(row)) {
      if (nodes.length > 0) nodes.push({ type: 'text', value: ' ' });
      nodes.push(...state.all(cell));
    }
    out.push(...wrap(nodes));
  }
  if (rows.rows.length === 0) out.push(...wrap(state.all(table)));
  return out;
}

export interface TableOptions {
  /**
   * Whether tables are judged layout or data (`isLayout`). Web pages lay themselves out with
   * tables: a layout table is unwrapped into its content, a row a paragraph. A document's
   * tables are the author's data, never judged.
   */
  layout: 'judge' | 'none';
  /**
   * Where a data table's inner tables go (GFM has no nested tables): inline into their cell,
   * a row's cells apart and rows after "; " (web pages), or the whole table kept as HTML
   * (documents, whose authors meant the structure).
   */
  nested: 'inline' | 'html';
  /**
   * A table with merged cells: its content repeated into the cells a merge covers (what a
   * reader of a web page's table expects of a GFM row), or the table kept as HTML with its
   * spans (documents: GFM cannot hold a merge, and the layout is the author's).
   */
  merged: 'repeat' | 'html';
  removeBase64Images: boolean;
}

/**
 * A table inside a data table's cell, on the cell's one line: its caption, then its rows after
 * "; ", each row's cells a space apart, so that no two cells' words run together.
 */
function inlineTable(state: TableState, rows: Rows): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  if (rows.caption) out.push(...flattenCell(state.all(rows.caption)), { type: 'text', value: ' ' });
  let first = true;
  for (const row of rows.rows) {
    const line: PhrasingContent[] = [];
    for (const cell of cellsOf(row)) {
      const content = flattenCell(state.all(cell));
      if (content.length === 0) continue;
      if (line.length > 0) line.push({ type: 'text', value: ' ' });
      line.push(...content);
    }
    if (line.length === 0) continue;
    if (!first) out.push({ type: 'text', value: '; ' });
    out.push(...line);
    first = false;
  }
  return out;
}

/**
 * `table` → GFM table, or its content when it is a layout table or has one cell. Spans are
 * repeated into the cells they cover, a table without a header row gets its first row as
 * header, block content in cells is kept on one line, and a caption becomes a paragraph
 * before the table.
 */
export function tableToMdast(
  state: TableState,
  node: Element,
  options: TableOptions,
): RootContent | RootContent[] | undefined {
  const rows = tableRows(node);
  if (state.inTable) return inlineTable(state, rows);
  const cellRows = rows.rows.map(cellsOf);
  const cellCount = cellRows.reduce((n, cells) => n + cells.length, 0);
  if (cellCount <= 1) return flowOf(state, node, rows);
  if (options.layout === 'judge' && isLayout(node, rows, cellRows)) return flowOf(state, node, rows);
  if (options.nested === 'html' && hasNestedTable(cellRows.flat()))
    return tableAsHtml(state.minified(node), options);
  if (options.merged === 'html' && cellRows.some((cells) => cells.some(isMerged)))
    return tableAsHtml(state.minified(node), options);

  state.inTable = true;
  const contents = cellRows.map((cells) => cells.map((cell) => flattenCell(state.all(cell))));
  state.inTable = false;

  // Lay the cells on a grid, repeating spanned content, within the byte budget.
  const textBytes = cellRows.map((cells) => cells.map((cell) => toText(cell).length + SLOT_BYTES));
  const budget = GRID_GROWTH * textBytes.flat().reduce((a, b) => a + b, 0) + GRID_SLACK_BYTES;
  let spanned = 0;
  for (let r = 0; r < cellRows.length; r++) {
    for (const [i, cell] of cellRows[r]!.entries()) {
      const copies =
        span(cell.properties.colSpan, MAX_COLSPAN) * span(cell.properties.rowSpan, cellRows.length - r);
      spanned += copies * textBytes[r]![i]!;
    }
  }
  let grid = spanned <= budget ? layOut(cellRows, contents, true) : undefined;
  if (!grid || gridBytes(grid, textBytes, true, cellRows) > budget) grid = layOut(cellRows, contents, false);
  if (gridBytes(grid, textBytes, false, cellRows) > budget) return flowOf(state, node, rows);
  const width = grid.reduce((w, line) => Math.max(w, line.length), 0);
  const tableRowsOut: TableRow[] = grid
    .filter((line) => line.length > 0)
    .map((line) => {
      const children: TableCell[] = [];
      for (let c = 0; c < width; c++) children.push({ type: 'tableCell', children: line[c] ?? [] });
      return { type: 'tableRow', children };
    });
  if (tableRowsOut.length === 0) return rows.caption ? wrap(state.all(rows.caption)) : undefined;

  const result: Table = {
    type: 'table',
    align: alignments(cellRows[0] ?? [], width),
    children: tableRowsOut,
  };
  if (!rows.caption) return result;
  const caption = flattenCell(state.all(rows.caption));
  return caption.length > 0 ? [{ type: 'paragraph', children: caption }, result] : result;
}

type Grid = Array<Array<PhrasingContent[] | undefined>>;

/** The cells on a grid row by row, each spanned cell's content repeated into the slots it covers. */
function layOut(cellRows: Element[][], contents: PhrasingContent[][][], withSpans: boolean): Grid {
  const grid: Grid = cellRows.map(() => []);
  for (let r = 0; r < cellRows.length; r++) {
    const line = grid[r]!;
    let c = 0;
    const cells = cellRows[r]!;
    for (let i = 0; i < cells.length; i++) {
      while (line[c] !== undefined) c++;
      const cell = cells[i]!;
      const colSpan = withSpans ? span(cell.properties.colSpan, MAX_COLSPAN) : 1;
      const rowSpan = withSpans ? span(cell.properties.rowSpan, cellRows.length - r) : 1;
      const content = contents[r]![i]!;
      for (let dr = 0; dr < rowSpan; dr++) {
        const target = grid[r + dr]!;
        for (let dc = 0; dc < colSpan; dc++) target[c + dc] = dr === 0 && dc === 0 ? content : clone(content);
      }
      c += colSpan;
    }
  }
  return grid;
}

/** What the grid costs as GFM: its cells' text, repeated as laid out, and every slot's separator. */
function gridBytes(grid: Grid, textBytes: number[][], withSpans: boolean, cellRows: Element[][]): number {
  const width = grid.reduce((w, line) => Math.max(w, line.length), 0);
  const rowsOut = grid.filter((line) => line.length > 0).length;
  let bytes = rowsOut * width * SLOT_BYTES;
  for (let r = 0; r < cellRows.length; r++) {
    for (const [i, cell] of cellRows[r]!.entries()) {
      const copies = withSpans
        ? span(cell.properties.colSpan, MAX_COLSPAN) * span(cell.properties.rowSpan, cellRows.length - r)
        : 1;
      bytes += copies * (textBytes[r]![i]! - SLOT_BYTES);
    }
  }
  return bytes;
}

function alignments(cells: Element[], width: number): Table['align'] {
  const align: NonNullable<Table['align']> = [];
  for (const cell of cells) {
    const value = String(cell.properties.align ?? '').toLowerCase();
    const a = value === 'left' || value === 'right' || value === 'center' ? value : null;
    for (let i = 0; i < span(cell.properties.colSpan, MAX_COLSPAN); i++) align.push(a);
  }
  align.length = Math.min(align.length, width);
  while (align.length < width) align.push(null);
  return align;
}

/** Mdast nodes are serialized, never mutated, but each cell gets its own copy all the same. */
function clone(content: PhrasingContent[]): PhrasingContent[] {
  return structuredClone(content);
}

/** The whole table as one HTML block; inline images lose their bytes like everywhere else. */
function tableAsHtml(node: Element, options: TableOptions): RootContent {
  let html = toHtml(node);
  if (options.removeBase64Images) html = html.replace(/src="data:[^"]*"/gi, 'src="<Base64-Image-Removed>"');
  return { type: 'html', value: html };
}
