import type { CellObject, Comments, Range } from '@e965/xlsx';
import { cellText, hasText } from './cell-text.ts';

/**
 * Where a sheet's content is: the cells with text, grouped into blocks (tables) separated by
 * empty rows. Merged ranges hold their blocks together (a title merged over three rows is one
 * block) and count only when their top-left cell has text. The sheet's own dimension is
 * never trusted: everything comes from the cells the reader actually found.
 */
export type Rows = (CellObject[] | undefined)[];

export interface Block {
  /** First and last row and column, inclusive. */
  r0: number;
  r1: number;
  c0: number;
  c1: number;
  /** The merged ranges inside the block, by first row. */
  merges: Range[];
}

export interface NoteAnchor {
  r: number;
  c: number;
  comments: Comments;
}

export interface SheetLayout {
  blocks: Block[];
  notes: NoteAnchor[];
  /** Set when the sheet's merged ranges overlap (invalid) and were ignored. */
  overlappingMerges: boolean;
  /** Cells left out for lying beyond the largest possible grid. */
  outside: number;
}

/**
 * The largest grid any spreadsheet application opens (Excel and LibreOffice: 1,048,576 rows by
 * 16,384 columns). A cell claiming a place beyond it is damage or a trap (a row at 10^9, a
 * column "ZZZZZZ"), and is left out rather than allowed to widen a table to billions of cells.
 */
const MAX_ROWS = 1 << 20;
const MAX_COLUMNS = 1 << 14;

/**
 * Past this many holes in a row an array is walked by its keys: a cell at column XFD or a row
 * at 10^9 makes a sparse array, and visiting its holes one by one cost 38 s for 100,000 rows
 * holding a cell in columns A and XFD each.
 */
const LONG_GAP = 256;

/** The indices of an array's elements in ascending order, without visiting long gaps hole by hole. */
function* present<T>(array: readonly (T | undefined)[]): Generator<number> {
  let holes = 0;
  for (let i = 0; i < array.length; i++) {
    if (array[i] !== undefined) {
      holes = 0;
      yield i;
    } else if (++holes === LONG_GAP) {
      // Integer keys come out of for-in in ascending order.
      for (const key in array) {
        const k = Number(key);
        if (k > i && Number.isInteger(k) && array[k] !== undefined) yield k;
      }
      return;
    }
  }
}

interface Interval {
  start: number;
  end: number;
  c0: number;
  c1: number;
}

/** A row with content: its first and last columns with text, and how many cells have text. */
interface RowSpan {
  c0: number;
  c1: number;
  count: number;
}

/** The block's columns recomputed from its rows and merges. */
function fitColumns(block: Block, spans: Map<number, RowSpan>): Block {
  let c0 = Number.POSITIVE_INFINITY;
  let c1 = -1;
  for (let r = block.r0; r <= block.r1; r++) {
    const span = spans.get(r);
    if (span) {
      c0 = Math.min(c0, span.c0);
      c1 = Math.max(c1, span.c1);
    }
  }
  for (const m of block.merges) {
    c0 = Math.min(c0, m.s.c);
    c1 = Math.max(c1, m.e.c);
  }
  return { ...block, c0, c1 };
}

/**
 * A title line peeled off the top of a block: a row with one cell of text (often merged across
 * the table) above a row with several is a title, not the table's header.
 */
function peelTitle(block: Block, spans: Map<number, RowSpan>): Block[] {
  const { r0 } = block;
  const first = spans.get(r0);
  const next = spans.get(r0 + 1);
  if (first?.count !== 1 || !next || next.count < 2) return [block];
  // A range merged down from the first row holds it to the table.
  if (block.merges.some((m) => m.s.r === r0 && m.e.r > r0)) return [block];
  const title = { r0, r1: r0, c0: first.c0, c1: first.c1, merges: block.merges.filter((m) => m.s.r === r0) };
  const rest = { ...block, r0: r0 + 1, merges: block.merges.filter((m) => m.s.r > r0) };
  return [fitColumns(title, spans), fitColumns(rest, spans)];
}

/** Each merged range into the block holding its first row (both lists by row). */
function distributeMerges(blocks: Block[], merges: Range[]): void {
  merges.sort((a, b) => a.s.r - b.s.r);
  let b = 0;
  for (const m of merges) {
    while (b < blocks.length && blocks[b]!.r1 < m.s.r) b++;
    blocks[b]?.merges.push(m);
  }
}

export function layoutSheet(rows: Rows, sheetMerges: readonly Range[] | undefined): SheetLayout {
  const intervals: Interval[] = [];
  const spans = new Map<number, RowSpan>();
  const notes: NoteAnchor[] = [];
  let lastRow = -1;
  let lastColumn = -1;
  let outside = 0;
  for (const r of present(rows)) {
    const row = rows[r]!;
    let c0 = -1;
    let c1 = -1;
    let count = 0;
    for (const c of present(row)) {
      const cell = row[c]!;
      if (r >= MAX_ROWS || c >= MAX_COLUMNS) {
        outside++;
        continue;
      }
      if (cell.c && cell.c.length > 0) notes.push({ r, c, comments: cell.c });
      if (!hasText(cell)) continue;
      if (c0 === -1) c0 = c;
      c1 = c;
      count++;
    }
    if (c0 === -1) continue;
    intervals.push({ start: r, end: r, c0, c1 });
    spans.set(r, { c0, c1, count });
    lastRow = r;
    if (c1 > lastColumn) lastColumn = c1;
  }

  const merges: Range[] = [];
  for (const m of sheetMerges ?? []) {
    const anchor = rows[m.s.r]?.[m.s.c];
    if (m.s.r > lastRow || m.s.c > lastColumn || cellText(anchor).trim() === '') continue;
    const clipped = {
      s: { r: m.s.r, c: m.s.c },
      e: { r: Math.min(m.e.r, lastRow), c: Math.min(m.e.c, lastColumn) },
    };
    if (clipped.e.r === clipped.s.r && clipped.e.c === clipped.s.c) continue;
    merges.push(clipped);
    intervals.push({ start: clipped.s.r, end: clipped.e.r, c0: clipped.s.c, c1: clipped.e.c });
  }
  // Disjoint ranges (a valid sheet) cover at most the used range; more means a file repeating
  // ranges over each other, which would hold empty rows together and cost a write per cover.
  let area = 0;
  for (const m of merges) area += (m.e.r - m.s.r + 1) * (m.e.c - m.s.c + 1);
  const overlappingMerges = area > (lastRow + 1) * (lastColumn + 1);
  if (overlappingMerges) {
    merges.length = 0;
    intervals.splice(spans.size);
  }
  if (merges.length > 0) intervals.sort((a, b) => a.start - b.start);

  const blocks: Block[] = [];
  let current: Block | undefined;
  for (const iv of intervals) {
    if (current && iv.start <= current.r1 + 1) {
      current.r1 = Math.max(current.r1, iv.end);
      current.c0 = Math.min(current.c0, iv.c0);
      current.c1 = Math.max(current.c1, iv.c1);
    } else {
      current = { r0: iv.start, r1: iv.end, c0: iv.c0, c1: iv.c1, merges: [] };
      blocks.push(current);
    }
  }
  distributeMerges(blocks, merges);
  return { blocks: blocks.flatMap((b) => peelTitle(b, spans)), notes, overlappingMerges, outside };
}
