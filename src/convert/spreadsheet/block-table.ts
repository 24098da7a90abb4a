import type { CellObject, Range } from '@e965/xlsx';
import type { Element, ElementContent, RootContent } from 'hast';
import type { DataTable } from '../../document/model.ts';
import { approximateLength, cellText } from './cell-text.ts';
import type { Block, Rows } from './sheet-layout.ts';

/**
 * One block of a sheet as a table, its first row the header. A block with merged cells or
 * hyperlinks, or a single cell (which the renderer shows as plain text), becomes a hast table
 * (`colspan`/`rowspan`, links), as long as it is small enough to be a tree; every other block
 * is a `dataTable` whose rows are produced on demand, so a million-cell sheet never exists as
 * tree nodes. Output is budgeted in Markdown bytes across
 * the workbook: a block that would pass the budget is cut at the row where it runs out.
 */

/** Largest block built as a tree; past it merges are repeated as text and links kept as text. */
const TREE_CELLS = 50_000;

export interface OutputBudget {
  /** Markdown bytes the rest of the workbook may still produce. */
  remaining: number;
}

export interface BlockTable {
  node: RootContent;
  /** Set when the budget ran out: the first row (0-based, sheet coordinates) left out. */
  cutAtRow?: number;
  /** Set when the block's merged ranges overlap (invalid) and were ignored. */
  overlappingMerges?: boolean;
}

const SAFE_LINK = /^(?:https?|mailto|ftp|tel):/i;

function linkTarget(cell: CellObject | undefined): string | undefined {
  const target = cell?.l?.Target?.trim();
  return target && SAFE_LINK.test(target) ? target : undefined;
}

/** Rows of the block that fit the budget: an estimate of each GFM row's length (`| a | b |`). */
function rowsWithinBudget(rows: Rows, block: Block, budget: OutputBudget): { last: number; links: boolean } {
  const width = block.c1 - block.c0 + 1;
  let links = false;
  for (let r = block.r0; r <= block.r1; r++) {
    const row = rows[r];
    let size = 3 * width + 2;
    if (row) {
      for (let c = block.c0; c <= block.c1; c++) {
        const cell = row[c];
        if (!cell) continue;
        size += approximateLength(cell);
        if (!links && linkTarget(cell)) links = true;
      }
    }
    if (r === block.r0) size += 4 * width + 2; // the delimiter row
    if (size > budget.remaining) return { last: r - 1, links };
    budget.remaining -= size;
  }
  return { last: block.r1, links };
}

interface Span {
  rowspan: number;
  colspan: number;
}

function textNodes(text: string): ElementContent[] {
  const lines = text.split('\n');
  const out: ElementContent[] = [];
  lines.forEach((line, i) => {
    if (i > 0) out.push({ type: 'element', tagName: 'br', properties: {}, children: [] });
    if (line) out.push({ type: 'text', value: line });
  });
  return out;
}

function treeTable(rows: Rows, block: Block, last: number, merges: readonly Range[]): Element {
  const spans = new Map<string, Span>();
  const covered = new Set<string>();
  let headerSpansDown = false;
  for (const m of merges) {
    const rowspan = Math.min(m.e.r, last) - m.s.r + 1;
    const colspan = m.e.c - m.s.c + 1;
    spans.set(`${m.s.r},${m.s.c}`, { rowspan, colspan });
    if (m.s.r === block.r0 && rowspan > 1) headerSpansDown = true;
    for (let r = m.s.r; r < m.s.r + rowspan; r++)
      for (let c = m.s.c; c <= m.e.c; c++) if (r !== m.s.r || c !== m.s.c) covered.add(`${r},${c}`);
  }
  const trs: Element[] = [];
  for (let r = block.r0; r <= last; r++) {
    const tag = r === block.r0 ? 'th' : 'td';
    const cells: ElementContent[] = [];
    for (let c = block.c0; c <= block.c1; c++) {
      const key = `${r},${c}`;
      if (covered.has(key)) continue;
      const cell = rows[r]?.[c];
      const text = cellText(cell).trim();
      const href = linkTarget(cell);
      const content = textNodes(text);
      const span = spans.get(key);
      const properties: Record<string, number> = {};
      if (span && span.rowspan > 1) properties.rowSpan = span.rowspan;
      if (span && span.colspan > 1) properties.colSpan = span.colspan;
      cells.push({
        type: 'element',
        tagName: tag,
        properties,
        children:
          href && text
            ? [{ type: 'element', tagName: 'a', properties: { href }, children: content }]
            : content,
      });
    }
    trs.push({ type: 'element', tagName: 'tr', properties: {}, children: cells });
  }
  const section = (tagName: string, children: Element[]): Element => ({
    type: 'element',
    tagName,
    properties: {},
    children,
  });
  // A header cell spanning into the body cannot sit in <thead>: the rows stay in one group.
  const children =
    headerSpansDown || trs.length === 0
      ? [section('tbody', trs)]
      : trs.length === 1
        ? [section('thead', trs)]
        : [section('thead', trs.slice(0, 1)), section('tbody', trs.slice(1))];
  return { type: 'element', tagName: 'table', properties: {}, children };
}

/**
 * Covered cells show their range's text, as the renderer does for spans in GFM tables. Rows
 * are produced in order, so the ranges covering a row are kept as a running list.
 */
function dataTable(rows: Rows, block: Block, last: number, merges: readonly Range[]): DataTable {
  const width = block.c1 - block.c0 + 1;
  const rowText = (r: number, covering: readonly Range[]): string[] => {
    const row = rows[r];
    const out = new Array<string>(width);
    for (let c = block.c0; c <= block.c1; c++) out[c - block.c0] = cellText(row?.[c]);
    for (const m of covering) {
      const text = cellText(rows[m.s.r]?.[m.s.c]);
      for (let c = m.s.c; c <= m.e.c; c++) out[c - block.c0] = text;
    }
    return out;
  };
  return {
    type: 'dataTable',
    columns: width,
    rowCount: last - block.r0,
    header: rowText(
      block.r0,
      merges.filter((m) => m.s.r === block.r0),
    ),
    rows: function* () {
      let next = 0;
      let covering: Range[] = [];
      for (let r = block.r0 + 1; r <= last; r++) {
        while (next < merges.length && merges[next]!.s.r <= r) covering.push(merges[next++]!);
        if (covering.length > 0) covering = covering.filter((m) => m.e.r >= r);
        yield rowText(r, covering);
      }
    },
  };
}

/** Cells the merged ranges cover together; overlapping ranges count twice. */
function mergedArea(merges: readonly Range[]): number {
  let area = 0;
  for (const m of merges) area += (m.e.r - m.s.r + 1) * (m.e.c - m.s.c + 1);
  return area;
}

export function blockTable(rows: Rows, block: Block, budget: OutputBudget): BlockTable | undefined {
  const { last, links } = rowsWithinBudget(rows, block, budget);
  if (last < block.r0) return undefined;
  const width = block.c1 - block.c0 + 1;
  // Merged ranges of a valid sheet are disjoint, so they cover at most the block; ranges that
  // overlap (a file repeating one range 60,000 times) would make every covered cell cost
  // thousands of writes, and are ignored.
  const overlapping = mergedArea(block.merges) > (block.r1 - block.r0 + 1) * width;
  const merges = overlapping ? [] : block.merges;
  const inside = last < block.r1 ? merges.filter((m) => m.s.r <= last) : merges;
  const cells = (last - block.r0 + 1) * width;
  const node =
    (inside.length > 0 || links || cells === 1) && cells <= TREE_CELLS
      ? treeTable(rows, block, last, inside)
      : dataTable(rows, block, last, inside);
  const table: BlockTable = { node };
  if (last < block.r1) table.cutAtRow = last + 1;
  if (overlapping) table.overlappingMerges = true;
  return table;
}
