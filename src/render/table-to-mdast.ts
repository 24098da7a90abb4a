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

function hasNestedTable(table: Element): boolean {
  const stack: ElementContent[] = [...table.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'element') continue;
    if (node.tagName === 'table') return true;
    stack.push(...node.children);
  }
  return false;
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
   * What a table holding tables becomes. On web pages such tables are layout, unwrapped into
   * their content; in documents they are data, kept whole as HTML (GFM has no nested tables).
   */
  nested: 'unwrap' | 'html';
  /**
   * A table with merged cells: its content repeated into the cells a merge covers (what a
   * reader of a web page's table expects of a GFM row), or the table kept as HTML with its
   * spans (documents: GFM cannot hold a merge, and the layout is the author's).
   */
  merged: 'repeat' | 'html';
  removeBase64Images: boolean;
}

/**
 * `table` → GFM table. Spans are repeated into the cells they cover, a table without a header
 * row gets its first row as header, block content in cells is kept on one line, and a caption
 * becomes a paragraph before the table. One-cell tables are unwrapped into their content.
 */
export function tableToMdast(
  state: TableState,
  node: Element,
  options: TableOptions,
): RootContent | RootContent[] | undefined {
  if (state.inTable) {
    const text = toText(node).replace(/\s+/g, ' ').trim();
    return text ? { type: 'text', value: text } : undefined;
  }
  const rows = tableRows(node);
  const cellRows = rows.rows.map(cellsOf);
  const cellCount = cellRows.reduce((n, cells) => n + cells.length, 0);
  if (cellCount <= 1) return flowOf(state, node, rows);
  if (hasNestedTable(node))
    return options.nested === 'html' ? tableAsHtml(state.minified(node), options) : flowOf(state, node, rows);
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
