import type { TableCell, TextRun } from '../page-content.ts';
import { cellText, groupLines, isNumeric, joinLine } from './text-lines.ts';

/** A cell with the runs it holds, before its text is fixed. */
export interface RunCell extends TableCell {
  ids: number[];
}

/**
 * Ruled tables often rule only some rows: several data rows then share one grid row, their
 * values stacked line by line in each cell. A grid row is split into its text lines when some
 * cell holds a stack of two or more numbers, one per line, and no cell spans rows.
 */
export function splitStackedRows(
  runs: readonly TextRun[],
  cells: readonly RunCell[],
  rows: number,
): { cells: RunCell[]; rows: number } {
  const byRow: RunCell[][] = Array.from({ length: rows }, () => []);
  for (const c of cells) byRow[c.row]!.push(c);
  const out: RunCell[] = [];
  let shift = 0;
  for (let r = 0; r < rows; r++) {
    const row = byRow[r];
    const lines = row!.some((c) => c.rowSpan > 1)
      ? []
      : groupLines(
          runs,
          row!.flatMap((c) => c.ids),
        );
    if (lines.length < 2 || !row!.some((c) => isStack(runs, c.ids))) {
      for (const c of row!) out.push({ ...c, row: c.row + shift });
      continue;
    }
    // Sub-rows: the lines of the number stacks, plus lines of their own that start a new label.
    // A wrapped label line (lowercase start) joins the nearest sub-row; a one-line cell set
    // between sub-rows (vertically centred beside a stack) spans them all.
    const lineOf = new Map<number, number>();
    lines.forEach((l, k) => {
      for (const i of l.runs) lineOf.set(i, k);
    });
    const stack = new Set<number>();
    for (const c of row!) if (isStack(runs, c.ids)) for (const i of c.ids) stack.add(lineOf.get(i) ?? 0);
    const single = (c: RunCell) => new Set(c.ids.map((i) => lineOf.get(i))).size === 1;
    const spanning = new Set<number>();
    const own = new Set<number>(stack);
    lines.forEach((l, k) => {
      if (stack.has(k)) return;
      const owners = row!.filter((c) => c.ids.some((i) => lineOf.get(i) === k));
      if (owners.every(single)) spanning.add(k);
      else if (!/^[a-z(]/.test(joinLine(runs, l.runs))) own.add(k);
    });
    const sub = [...own].sort((a, b) => a - b);
    const mid = (k: number) => (lines[k]!.top + lines[k]!.bottom) / 2;
    const subOf = (k: number) => {
      let best = 0;
      for (let s = 1; s < sub.length; s++)
        if (Math.abs(mid(sub[s]!) - mid(k)) < Math.abs(mid(sub[best]!) - mid(k))) best = s;
      return best;
    };
    for (const c of row!) {
      const k = lineOf.get(c.ids[0]!) ?? 0;
      if (c.ids.length && single(c) && spanning.has(k)) {
        out.push({ ...c, row: r + shift, rowSpan: sub.length });
        continue;
      }
      for (let s = 0; s < sub.length; s++) {
        if (c.ids.length && spanning.has(lineOf.get(c.ids[0]!) ?? -1) && single(c)) continue;
        const ids = c.ids.filter((i) => subOf(lineOf.get(i) ?? 0) === s);
        out.push({ ...c, row: r + shift + s, ids, text: cellText(runs, ids) });
      }
    }
    shift += sub.length - 1;
  }
  return { cells: out, rows: rows + shift };
}

function isStack(runs: readonly TextRun[], ids: readonly number[]): boolean {
  const lines = groupLines(runs, ids);
  return lines.length >= 2 && lines.every((l) => isNumeric(joinLine(runs, l.runs)));
}

/**
 * A grid row holding only a lowercase continuation in the first column is the wrapped label
 * of the row above (rules drawn per text line, or row fills): it is folded into that row.
 */
export function mergeWrappedRows(
  cells: readonly RunCell[],
  rows: number,
): { cells: RunCell[]; rows: number } {
  const anchored: RunCell[][] = Array.from({ length: rows }, () => []);
  for (const c of cells) anchored[c.row]!.push(c);
  const removed = new Uint8Array(rows);
  const out = cells.map((c) => ({ ...c }));
  const byKey = new Map<RunCell, RunCell>();
  for (let i = 0; i < cells.length; i++) byKey.set(cells[i]!, out[i]!);
  for (let r = 1; r < rows; r++) {
    const filled = anchored[r]!.filter((c) => c.text);
    if (
      filled.length !== 1 ||
      filled[0]!.col !== 0 ||
      filled[0]!.colSpan !== 1 ||
      !/^[a-z(]/.test(filled[0]!.text)
    )
      continue;
    const above = cells.find(
      (c) => c.col === 0 && c.row <= r - 1 && c.row + c.rowSpan > r - 1 && c.row + c.rowSpan <= r,
    );
    if (!above?.text) continue;
    const target = byKey.get(above);
    if (!target) continue;
    target.text = `${target.text} ${filled[0]!.text}`;
    target.ids = [...target.ids, ...filled[0]!.ids];
    byKey.set(filled[0]!, target);
    removed[r] = 1;
  }
  const before = new Int32Array(rows + 1);
  for (let r = 0; r < rows; r++) before[r + 1] = before[r]! + removed[r]!;
  const kept = out.filter((c) => !removed[c.row]);
  for (const c of kept) {
    const end = c.row + c.rowSpan;
    c.rowSpan -= before[end]! - before[c.row]!;
    c.row -= before[c.row]!;
  }
  return { cells: kept, rows: rows - before[rows]! };
}

/**
 * A header written on two ruled lines ("Launch:" over "May 21, 2009", "to air" over
 * "kg/year" in each column) with the stub cell spanning both: one header row, each column's
 * two lines joined. The two lines are the first rows, or the two under a heading that spans
 * the columns. Only when both rows have one cell of text in every other column; a heading
 * spanning several columns over the headings it groups is a real second level and stays.
 */
export function mergeTwoLineHeader(
  cells: readonly RunCell[],
  rows: number,
): { cells: RunCell[]; rows: number } {
  for (const first of [0, 1]) {
    const merged = mergeHeaderAt(cells, rows, first);
    if (merged) return merged;
  }
  return { cells: [...cells], rows };
}

function mergeHeaderAt(
  cells: readonly RunCell[],
  rows: number,
  first: number,
): { cells: RunCell[]; rows: number } | null {
  const corner = cells.find((c) => c.row === first && c.col === 0);
  if (rows < first + 3 || !corner || corner.rowSpan !== 2 || corner.colSpan !== 1) return null;
  const top = cells.filter((c) => c.row === first && c !== corner);
  const second = cells.filter((c) => c.row === first + 1);
  const plain = (c: RunCell) => c.rowSpan === 1 && c.colSpan === 1 && c.text !== '' && !isNumeric(c.text);
  if (!top.length || top.length !== second.length || !top.every(plain) || !second.every(plain)) return null;
  const out: RunCell[] = cells.filter((c) => c.row < first);
  out.push({ ...corner, rowSpan: 1 });
  for (const c of top) {
    const below = second.find((s) => s.col === c.col);
    if (!below) return null;
    out.push({ ...c, text: `${c.text} ${below.text}`, ids: [...c.ids, ...below.ids] });
  }
  for (const c of cells) if (c.row > first + 1) out.push({ ...c, row: c.row - 1 });
  return { cells: out, rows: rows - 1 };
}
