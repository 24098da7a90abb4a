import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import type { TableCellShape } from './drawing.ts';

/**
 * A PowerPoint 97-2003 table is a group of cell rectangles (plus border lines) with no row or
 * column structure stored: rows and columns are rebuilt from the cells' edges. Each distinct
 * top edge starts a row and each distinct left edge a column; a cell spans the rows and
 * columns whose starts lie inside it (merged cells are one larger rectangle).
 */

/** Edges closer than this (in master units, 1/576 inch) are the same grid line. */
const SNAP = 8;

/** Sorted distinct grid lines, values within SNAP of the previous line merged into it. */
function gridLines(values: number[]): number[] {
  const lines: number[] = [];
  for (const v of [...values].sort((a, b) => a - b)) {
    if (!lines.length || v - lines[lines.length - 1]! > SNAP) lines.push(v);
  }
  return lines;
}

/** Index of the last line at or before `v` (snapped), by binary search. */
function lineIndex(lines: number[], v: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid]! <= v + SNAP) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function buildTable(
  cells: TableCellShape[],
  content: (cell: TableCellShape) => ElementContent[],
): Element | undefined {
  const contents = cells.map(content);
  if (!contents.some((c) => c.length)) return undefined;
  const rows = gridLines(cells.map((c) => c.top));
  const columns = gridLines(cells.map((c) => c.left));
  const placed = cells.map((cell, i) => {
    const row = lineIndex(rows, cell.top);
    const column = lineIndex(columns, cell.left);
    return {
      row,
      column,
      rowSpan: Math.max(1, lineIndex(rows, cell.bottom - 2 * SNAP) - row + 1),
      colSpan: Math.max(1, lineIndex(columns, cell.right - 2 * SNAP) - column + 1),
      content: contents[i]!,
    };
  });
  placed.sort((a, b) => a.row - b.row || a.column - b.column);
  const trs: Element[] = [];
  let tr: Element | undefined;
  let current = -1;
  for (const cell of placed) {
    if (cell.row !== current || !tr) {
      tr = h('tr');
      trs.push(tr);
      current = cell.row;
    }
    const props: Record<string, number> = {};
    if (cell.rowSpan > 1) props.rowSpan = cell.rowSpan;
    if (cell.colSpan > 1) props.colSpan = cell.colSpan;
    tr.children.push(h('td', props, cell.content));
  }
  return h('table', h('tbody', trs));
}
