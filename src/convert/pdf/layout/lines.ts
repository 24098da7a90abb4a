import type { TextRun } from '../page-content.ts';
import { CJK } from '../text-cleanup.ts';
import { findGutters, gutterIn } from './gutters.ts';
import type { Line } from './types.ts';

/** A horizontal gap wider than this many ems ends a line fragment (column gutter, table cell). */
const SPLIT_GAP_EM = 1.5;
const SPLIT_GAP_RTL_EM = 2.5;
const MARKER = /^([•●○◦▪■□‣⁃►▸➢✓✔❖◆·*–-]|\(?(\d{1,3}|[a-z]|[ivx]{1,5})[.)])$/u;

function center(r: TextRun): number {
  return r.y + r.height / 2;
}

/**
 * Runs → line fragments: runs whose vertical extents overlap by half share a row; a row is
 * cut at wide gaps, so two columns never share a line. Small runs (superscripts, subscripts)
 * are placed afterwards, into the row they overlap most next to a run close by, so a raised
 * footnote mark never joins the neighbouring column's row. Runs drawn twice at the same
 * place (fake bold) are kept once.
 */
export function buildLines(runs: readonly TextRun[], pageWidth: number): Line[] {
  const heights = runs.map((r) => r.height).sort((a, b) => a - b);
  const small = (heights[Math.floor(heights.length / 2)] ?? 0) * 0.7;
  const rows = buildRows(runs.filter((r) => r.height >= small));
  const orphans: TextRun[] = [];
  for (const run of runs) {
    if (run.height >= small) continue;
    let best: TextRun[] | undefined;
    let bestOverlap = 0;
    for (const row of rows) {
      const overlap = Math.min(row.bottom, run.y + run.height) - Math.max(row.top, run.y);
      if (overlap <= bestOverlap) continue;
      const near = row.runs.some(
        (r) => r.x - (run.x + run.width) < run.fontSize * 2 && run.x - (r.x + r.width) < run.fontSize * 2,
      );
      if (near) [best, bestOverlap] = [row.runs, overlap];
    }
    if (best) best.push(run);
    else orphans.push(run);
  }
  rows.push(...buildRows(orphans));
  const gutters = findGutters(
    rows.map((r) => r.runs),
    pageWidth,
  );
  const scale = pageWidth > 5000 ? 5000 / pageWidth : 1;
  const lines: Line[] = [];
  for (const r of rows) splitRow(r.runs, lines, (a, b) => gutterIn(gutters, a, b, scale));
  return lines;
}

interface Row {
  runs: TextRun[];
  top: number;
  bottom: number;
}

function buildRows(runs: readonly TextRun[]): Row[] {
  const sorted = [...runs].sort((a, b) => center(a) - center(b) || a.x - b.x);
  const rows: Row[] = [];
  for (const run of sorted) {
    // A few rows stay open, so a column's line is not cut by the next column's lines.
    let best: Row | undefined;
    let bestOverlap = 0;
    for (let i = rows.length - 1; i >= Math.max(0, rows.length - OPEN_ROWS); i--) {
      const row = rows[i]!;
      const overlap = fits(row, run);
      if (overlap > bestOverlap) [best, bestOverlap] = [row, overlap];
    }
    if (best) {
      best.runs.push(run);
      // The row's band is its tallest run's extent, so it never creeps down the page.
      if (run.height > best.bottom - best.top) [best.top, best.bottom] = [run.y, run.y + run.height];
    } else rows.push({ runs: [run], top: run.y, bottom: run.y + run.height });
  }
  return rows;
}

/** Rows still open for new runs while sweeping down the page. */
const OPEN_ROWS = 6;

/**
 * How well a run sits on a row (0: not at all): half its height inside the row's band, and
 * for text of a clearly different size the same baseline, as a taller line next to two
 * shorter ones overlaps both.
 */
function fits(row: Row, run: TextRun): number {
  const overlap = Math.min(row.bottom, run.y + run.height) - Math.max(row.top, run.y);
  const rowHeight = row.bottom - row.top;
  const min = Math.min(rowHeight, run.height);
  if (overlap < min * 0.5) return 0;
  if (Math.max(rowHeight, run.height) / min > 1.3 && Math.abs(row.bottom - (run.y + run.height)) > min * 0.3)
    return 0;
  return overlap / min;
}

function splitRow(row: TextRun[], out: Line[], atGutter: (from: number, to: number) => boolean): void {
  row.sort((a, b) => a.x - b.x);
  let current: TextRun[] = [];
  let end = 0;
  for (const run of row) {
    const prev = current[current.length - 1];
    if (prev && prev.text === run.text && Math.abs(prev.x - run.x) < prev.fontSize * 0.3) continue;
    const size = Math.max(prev?.fontSize ?? run.fontSize, run.fontSize);
    const gap = run.x - end;
    // Text of clearly different sizes side by side is two columns' lines, unless they touch.
    const sizeJump =
      prev && Math.max(prev.fontSize, run.fontSize) / Math.min(prev.fontSize, run.fontSize) > 1.25;
    // Justified Arabic stretches its spaces far wider than Latin text does.
    const rtl = prev?.dir === 'rtl' || run.dir === 'rtl';
    // A bullet or item number stays with its text however wide the tab after it.
    const marker = prev && current.length === 1 && MARKER.test(prev.text.trim()) && gap < size * 4;
    if (
      prev &&
      !marker &&
      (gap > size * (rtl ? SPLIT_GAP_RTL_EM : SPLIT_GAP_EM) ||
        (sizeJump && gap > Math.min(prev.fontSize, run.fontSize) * 0.5) ||
        (gap > size * 0.2 && atGutter(end, run.x)))
    ) {
      out.push(makeLine(current));
      current = [];
    }
    current.push(run);
    end = current.length === 1 ? run.x + run.width : Math.max(end, run.x + run.width);
  }
  if (current.length) out.push(makeLine(current));
}

function makeLine(runs: TextRun[]): Line {
  let x = Infinity;
  let y = Infinity;
  let r = -Infinity;
  let b = -Infinity;
  let size = 0;
  let chars = 0;
  let rtl = 0;
  for (const run of runs) {
    x = Math.min(x, run.x);
    y = Math.min(y, run.y);
    r = Math.max(r, run.x + run.width);
    b = Math.max(b, run.y + run.height);
    const n = run.text.length;
    size += run.fontSize * n;
    chars += n;
    if (run.dir === 'rtl') rtl += n;
  }
  return {
    runs,
    x,
    y,
    width: r - x,
    height: b - y,
    fontSize: size / Math.max(chars, 1),
    rtl: rtl * 2 > chars,
  };
}

/** Whether a space belongs between two pieces of text set `gap` points apart. */
export function needsSpace(before: string, after: string, gap: number, fontSize: number): boolean {
  if (!before || !after || /\s$/.test(before) || /^\s/.test(after)) return false;
  if (CJK.test(before.slice(-1)) || CJK.test(after[0]!)) return gap > fontSize * 0.6;
  return gap > fontSize * 0.12;
}
