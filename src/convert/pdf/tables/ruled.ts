import type { DetectedTable, TextRun } from '../page-content.ts';
import { firstRowBold, releaseCaptionAndNotes } from './framed-notes.ts';
import { isHeaderRow } from './header.ts';
import { covers, type Ruling, type Rulings, SNAP } from './rulings.ts';
import { dropSpacerColumns } from './spacer-columns.ts';
import { mergeTwoLineHeader, mergeWrappedRows, type RunCell, splitStackedRows } from './stacked-rows.ts';
import { cellText } from './text-lines.ts';
import { CELL_GAP } from './words.ts';

/** Grid lines nearer than this (points) are one boundary: double borders, cell fills drawn edge to edge. */
const SAME_LINE = 3;
/** A ruled table needs text in at least this share of its cells, or it is a frame, form or drawing. */
const MIN_FILLED = 0.25;
/** Fewer labelled cells than this in a drawn grid is a diagram or a form box, not a table. */
const MIN_LABELS = 4;
/** Mean words per filled cell above which the boxes hold paragraphs. */
const PROSE_WORDS = 25;

/** Tables drawn with ruling lines: connected grids of horizontal and vertical rules, cells from the grid. */
export function findRuledTables(
  runs: readonly TextRun[],
  rulings: Rulings,
  free: readonly number[],
): DetectedTable[] {
  const tables: DetectedTable[] = [];
  for (const grid of connectedGrids(rulings)) {
    const table = buildTable(runs, grid, free);
    if (table) tables.push(table);
  }
  return tables;
}

interface Grid {
  horizontal: Ruling[];
  vertical: Ruling[];
}

/** Groups rulings that touch or cross into grids (union-find over intersections, verticals found by binary search). */
function connectedGrids({ horizontal, vertical }: Rulings): Grid[] {
  const n = horizontal.length;
  const parent = Array.from({ length: n + vertical.length }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  const vs = vertical.map((v, i) => ({ v, i: n + i })).sort((a, b) => a.v.pos - b.v.pos);
  for (let h = 0; h < n; h++) {
    const line = horizontal[h];
    let lo = 0;
    let hi = vs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vs[mid]!.v.pos < line!.from - SAME_LINE) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < vs.length && vs[k]!.v.pos <= line!.to + SAME_LINE; k++) {
      const v = vs[k]!.v;
      if (line!.pos >= v.from - SAME_LINE && line!.pos <= v.to + SAME_LINE) parent[find(vs[k]!.i)] = find(h);
    }
  }
  const groups = new Map<number, Grid>();
  const at = (i: number): Grid => {
    const root = find(i);
    let g = groups.get(root);
    if (!g) {
      g = { horizontal: [], vertical: [] };
      groups.set(root, g);
    }
    return g;
  };
  for (let i = 0; i < n; i++) at(i).horizontal.push(horizontal[i]!);
  for (let i = 0; i < vertical.length; i++) at(n + i).vertical.push(vertical[i]!);
  return [...groups.values()].filter((g) => g.horizontal.length >= 2 && g.vertical.length >= 2);
}

/** Distinct positions, nearer ones merged. */
function positions(values: number[]): number[] {
  values.sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of values) if (!out.length || v - out[out.length - 1]! > SAME_LINE) out.push(v);
  return out;
}

function slotOf(edges: readonly number[], v: number): number {
  if (v < edges[0]! || v > edges[edges.length - 1]!) return -1;
  let lo = 0;
  let hi = edges.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (edges[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function buildTable(runs: readonly TextRun[], grid: Grid, free: readonly number[]): DetectedTable | null {
  const { horizontal: hs, vertical: vs } = grid;
  let left = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const h of hs) {
    left = Math.min(left, h.from);
    right = Math.max(right, h.to);
  }
  for (const v of vs) {
    top = Math.min(top, v.from);
    bottom = Math.max(bottom, v.to);
  }
  // Open-sided tables: the outer extent of the rules is a boundary even without a line there.
  const xs = positions([left, right, ...vs.map((v) => v.pos)]).filter(
    (x) => x >= left - SAME_LINE && x <= right + SAME_LINE,
  );
  const ys = positions([top, bottom, ...hs.map((h) => h.pos)]).filter(
    (y) => y >= top - SAME_LINE && y <= bottom + SAME_LINE,
  );
  const rows = ys.length - 1;
  const cols = xs.length - 1;
  if (rows < 1 || cols < 2 || rows * cols > 100_000) return null;

  // Runs by slot, by their centre.
  const slotRuns = new Map<number, number[]>();
  const used: number[] = [];
  for (const i of free) {
    const r = runs[i];
    const c = slotOf(xs, r!.x + r!.width / 2);
    const w = slotOf(ys, r!.y + r!.height / 2);
    if (c < 0 || w < 0) continue;
    const key = w * cols + c;
    const list = slotRuns.get(key);
    if (list) list.push(i);
    else slotRuns.set(key, [i]);
    used.push(i);
  }
  if (!used.length) return null;

  const outer = (x: number) => Math.abs(x - xs[0]!) < 0.5 || Math.abs(x - xs[cols]!) < 0.5;
  const outerY = (y: number) => Math.abs(y - ys[0]!) < 0.5 || Math.abs(y - ys[rows]!) < 0.5;
  // Rulings near each grid position, so each edge test looks at a few lines, not all of them.
  const vAt = xs.map((x) => vs.filter((v) => Math.abs(v.pos - x) <= SNAP));
  const hAt = ys.map((y) => hs.filter((h) => Math.abs(h.pos - y) <= SNAP));
  const vEdge = (r: number, c: number) => outer(xs[c]!) || covers(vAt[c]!, xs[c]!, ys[r]!, ys[r + 1]!);
  const hEdge = (r: number, c: number) => outerY(ys[r]!) || covers(hAt[r]!, ys[r]!, xs[c]!, xs[c + 1]!);

  // Text set apart in two slots keeps them apart even without a rule (rules hidden under row shading).
  const apart = (r: number, c: number): boolean => {
    const left = slotRuns.get(r * cols + c - 1);
    const right = slotRuns.get(r * cols + c);
    if (!left || !right) return false;
    let end = Number.NEGATIVE_INFINITY;
    let em = 0;
    for (const i of left) {
      end = Math.max(end, runs[i]!.x + runs[i]!.width);
      em = Math.max(em, runs[i]!.fontSize);
    }
    let start = Number.POSITIVE_INFINITY;
    for (const i of right) start = Math.min(start, runs[i]!.x);
    return start - end > CELL_GAP * em;
  };
  // Merged cells: grow each unclaimed slot right and down while the separating rule is missing.
  const owner = new Int32Array(rows * cols).fill(-1);
  const spans: { row: number; col: number; rowSpan: number; colSpan: number }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (owner[r * cols + c]! >= 0) continue;
      let cs = 1;
      while (c + cs < cols && owner[r * cols + c + cs]! < 0 && !vEdge(r, c + cs) && !apart(r, c + cs)) cs++;
      let rs = 1;
      grow: while (r + rs < rows) {
        for (let k = c; k < c + cs; k++) if (owner[(r + rs) * cols + k]! >= 0 || hEdge(r + rs, k)) break grow;
        rs++;
      }
      for (let dr = 0; dr < rs; dr++)
        for (let dc = 0; dc < cs; dc++) owner[(r + dr) * cols + c + dc] = spans.length;
      spans.push({ row: r, col: c, rowSpan: rs, colSpan: cs });
    }
  }

  // Rows and columns without any text (slivers between double rules, spacer strips) are dropped.
  const rowHas = new Uint8Array(rows);
  const colHas = new Uint8Array(cols);
  for (const key of slotRuns.keys()) {
    rowHas[Math.floor(key / cols)] = 1;
    colHas[key % cols] = 1;
  }
  const rowMap = remap(rowHas);
  const colMap = remap(colHas);
  const keptRows = rowMap[rows]!;
  const keptCols = colMap[cols]!;
  if (keptRows < 2 || keptCols < 2) return null;

  const cells: RunCell[] = [];
  let filled = 0;
  let headBold = true;
  for (const sp of spans) {
    const row = rowMap[sp.row]!;
    const col = colMap[sp.col]!;
    const rowSpan = rowMap[sp.row + sp.rowSpan]! - row;
    const colSpan = colMap[sp.col + sp.colSpan]! - col;
    if (rowSpan < 1 || colSpan < 1) continue;
    const ids: number[] = [];
    for (let dr = 0; dr < sp.rowSpan; dr++) {
      for (let dc = 0; dc < sp.colSpan; dc++) {
        const list = slotRuns.get((sp.row + dr) * cols + sp.col + dc);
        if (list) ids.push(...list);
      }
    }
    const text = cellText(runs, ids);
    if (text) filled++;
    if (row === 0 && ids.some((i) => !runs[i]!.bold)) headBold = false;
    cells.push({ row, col, rowSpan, colSpan, text, ids });
  }
  // Diagrams and frames: few labels, or boxes so irregular that most slots merge into big cells.
  if (filled < MIN_LABELS || filled < cells.length * MIN_FILLED || cells.length < keptRows * keptCols * 0.5)
    return null;
  // Boxed page layouts (covers, sidebars) hold paragraphs, not cell values.
  let words = 0;
  for (const c of cells) words += c.text.split(/\s+/).length;
  if (words > filled * PROSE_WORDS) return null;
  const stacked = splitStackedRows(runs, cells, keptRows);
  const wrapped = mergeWrappedRows(stacked.cells, stacked.rows);
  const merged = mergeTwoLineHeader(wrapped.cells, wrapped.rows);
  const narrowed = dropSpacerColumns(merged.cells, keptCols);
  // Text boxes and framed paragraphs: most rows are one cell across the whole width.
  let fullWidth = 0;
  for (const c of narrowed.cells) if (c.colSpan === narrowed.cols && c.text) fullWidth++;
  if (fullWidth * 2 > merged.rows) return null;
  const frame = { x: xs[0]!, y: ys[0]!, width: xs[cols]! - xs[0]!, height: ys[rows]! - ys[0]! };
  const table = releaseCaptionAndNotes(runs, narrowed.cells, merged.rows, narrowed.cols, frame);
  const released = new Set(table.released);
  return {
    box: table.box,
    rows: table.rows,
    cols: narrowed.cols,
    cells: table.cells.map(({ ids: _, ...cell }) => cell),
    header: isHeaderRow(table.cells, released.size > 0 ? firstRowBold(runs, table.cells) : headBold),
    runs: released.size > 0 ? used.filter((i) => !released.has(i)) : used,
  };
}

/** Prefix counts: map[i] = new index of old line i (and map[n] = kept count). */
function remap(has: Uint8Array): Int32Array {
  const map = new Int32Array(has.length + 1);
  for (let i = 0; i < has.length; i++) map[i + 1] = map[i]! + has[i]!;
  return map;
}
