import type { Element } from 'hast';
import { toText } from 'hast-util-to-text';
import type { PageBlock } from './types.ts';

type TableBlock = Extract<PageBlock, { kind: 'table' }>;

/** How far apart (share of the wider table) the left edges and widths of a table's two pieces may be. */
const EDGE_TOLERANCE = 0.05;
const WIDTH_TOLERANCE = 0.15;

/**
 * Whether `next` carries on `prev` over a page break: it opens the page after the one `prev`
 * ends, with nothing read between them, and has the same columns at the same place. A table
 * a page cannot hold is split this way, often with its header row repeated on each page.
 */
export function continuesTable(prev: TableBlock, next: TableBlock): boolean {
  if (next.page !== prev.page + 1) return false;
  const width = Math.max(prev.box.width, next.box.width);
  if (Math.abs(prev.box.x - next.box.x) > width * EDGE_TOLERANCE) return false;
  if (Math.abs(prev.box.width - next.box.width) > width * WIDTH_TOLERANCE) return false;
  const columns = columnCount(prev.node);
  return columns > 1 && columns === columnCount(next.node);
}

/**
 * Appends the rows of `next` to the body of `table`: a first row that repeats the table's
 * first row (its header printed again on the new page) is left out, and header cells of
 * the piece become data cells, since the table has one header.
 */
export function appendRows(table: Element, next: Element): void {
  const rows = tableRows(next);
  // Only the first row: the table grows with every page it runs on, so it is not walked whole.
  const first = firstRow(table);
  if (first && rows[0] && rowText(rows[0]) === rowText(first)) rows.shift();
  const body = table.children.find((c): c is Element => c.type === 'element' && c.tagName === 'tbody');
  if (!body) return;
  for (const row of rows) {
    const copy = structuredClone(row);
    for (const cell of copy.children)
      if (cell.type === 'element' && cell.tagName === 'th') cell.tagName = 'td';
    body.children.push(copy);
  }
}

/** The table's rows, head and body, in order. */
function tableRows(table: Element): Element[] {
  return table.children.flatMap((section) =>
    section.type === 'element' ? section.children.filter((r): r is Element => r.type === 'element') : [],
  );
}

function firstRow(table: Element): Element | undefined {
  for (const section of table.children)
    if (section.type === 'element')
      for (const row of section.children) if (row.type === 'element') return row;
  return undefined;
}

function rowText(row: Element): string {
  return row.children.map((cell) => (cell.type === 'element' ? toText(cell).trim() : '')).join('\t');
}

/** The widest row's width in columns, spans counted. */
function columnCount(table: Element): number {
  let most = 0;
  for (const row of tableRows(table)) {
    let n = 0;
    for (const cell of row.children) if (cell.type === 'element') n += Number(cell.properties.colSpan ?? 1);
    most = Math.max(most, n);
  }
  return most;
}
