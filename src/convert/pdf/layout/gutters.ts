import type { TextRun } from '../page-content.ts';
import { isBareMarker } from './lists.ts';

/** Rows that must show a gap at an x position before it can be a column gutter. */
const MIN_ROWS = 5;
/** Share of those rows whose text may cross the gutter (a heading spanning both columns). */
const MAX_CROSSING = 0.35;
/** Widest page handled bin by bin, in points; beyond it, positions are scaled down. */
const MAX_BINS = 5000;

/** How far from a gutter the columns' edges may lie, in points. */
const EDGE_WINDOW = 30;

/**
 * Column gutters of a page: x positions that many runs end just left of and many runs start
 * just right of, while few runs cross. Gutters as narrow as a word space exist (LaTeX's
 * default column separation is 10 pt for 10 pt text), so gap width alone cannot tell a
 * gutter from a wide space; edges piling up on both sides of a blank strip can. A list's
 * bullets and numbers, runs of their own, pile up edges too, between marker and item: they end
 * no column, so their right edges do not count. Returns, per point of x, whether it is a gutter.
 */
export function findGutters(rows: readonly (readonly TextRun[])[], pageWidth: number): Uint8Array {
  const scale = pageWidth > MAX_BINS ? MAX_BINS / pageWidth : 1;
  const bins = Math.max(1, Math.ceil(pageWidth * scale) + 1);
  const cover = new Int32Array(bins + 1);
  const ends = new Int32Array(bins + 1);
  const starts = new Int32Array(bins + 1);
  const clamp = (x: number) => Math.min(bins - 1, Math.max(0, Math.round(x * scale)));
  for (const row of rows)
    for (const run of row) {
      const a = clamp(run.x);
      const b = clamp(run.x + run.width);
      cover[a]! += 1;
      cover[b]! -= 1;
      if (!isBareMarker(run.text)) ends[b]! += 1;
      starts[a]! += 1;
    }
  // Prefix sums: running cover, and cumulative edge counts for window queries.
  for (let x = 1; x <= bins; x++) {
    cover[x]! += cover[x - 1]!;
    ends[x]! += ends[x - 1]!;
    starts[x]! += starts[x - 1]!;
  }
  const w = Math.max(1, Math.round(EDGE_WINDOW * scale));
  const gutter = new Uint8Array(bins);
  for (let x = 1; x < bins - 1; x++) {
    const left = ends[x]! - ends[Math.max(0, x - w)]!;
    const right = starts[Math.min(bins, x + w)]! - starts[x]!;
    const edges = Math.min(left, right);
    if (edges >= MIN_ROWS && cover[x]! <= edges * MAX_CROSSING) gutter[x] = 1;
  }
  return gutter;
}

/** Whether a gutter lies strictly inside the gap [from, to]. */
export function gutterIn(gutter: Uint8Array, from: number, to: number, scale: number): boolean {
  const a = Math.max(0, Math.ceil(from * scale) + 1);
  const b = Math.min(gutter.length - 1, Math.floor(to * scale) - 1);
  for (let x = a; x <= b; x++) if (gutter[x]) return true;
  return false;
}
