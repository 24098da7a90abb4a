import type { Box } from '../page-content.ts';
import { bottom, right } from './types.ts';

/** Narrowest vertical whitespace strip taken for a column gutter, in points. */
const MIN_GUTTER = 6;
/** Recursion depth bound; each level splits off at least one box, real pages need few. */
const MAX_DEPTH = 64;

interface Gap {
  at: number;
}

/** Gaps in the projection of boxes on one axis: positions where no box covers. */
function gaps<T extends Box>(
  boxes: readonly T[],
  start: (b: T) => number,
  end: (b: T) => number,
  min: number,
): Gap[] {
  const sorted = [...boxes].sort((a, b) => start(a) - start(b));
  const out: Gap[] = [];
  let reach = -Infinity;
  for (const b of sorted) {
    if (reach > -Infinity && start(b) - reach > min) out.push({ at: (start(b) + reach) / 2 });
    reach = Math.max(reach, end(b));
  }
  return out;
}

function splitAt<T extends Box>(boxes: readonly T[], cuts: Gap[], start: (b: T) => number): T[][] {
  const groups: T[][] = cuts.map(() => []);
  groups.push([]);
  for (const b of boxes) {
    let i = 0;
    while (i < cuts.length && start(b) > cuts[i]!.at) i++;
    groups[i]!.push(b);
  }
  return groups.filter((g) => g.length > 0);
}

const top = (b: Box) => b.y;
const left = (b: Box) => b.x;

/** Column gutters of a group: x positions of vertical whitespace strips. */
function gutters<T extends Box>(boxes: readonly T[]): number[] {
  return gaps(boxes, left, right, MIN_GUTTER).map((g) => g.at);
}

/**
 * Reading order by recursive XY-cut. A group is first cut into horizontal bands at blank
 * rows; neighbouring bands that share a column gutter are put back together (paragraph
 * breaks that happen to line up across columns are not section breaks). A single band is
 * cut into columns at vertical gutters, read left to right (right to left for RTL pages).
 */
export function readingOrder<T extends Box>(boxes: readonly T[], rtl = false, depth = 0): T[] {
  if (boxes.length <= 1 || depth > MAX_DEPTH) return [...boxes].sort((a, b) => a.y - b.y || a.x - b.x);
  const bands = splitAt(boxes, gaps(boxes, top, bottom, 0), top);
  if (bands.length > 1) {
    const merged: T[][] = [];
    let prevGutters: number[] = [];
    for (const band of bands) {
      const g = band.length > 1 ? gutters(band) : [];
      const last = merged[merged.length - 1];
      if (last && g.length > 0 && prevGutters.length > 0 && shareGutter(g, prevGutters, last, band)) {
        last.push(...band);
        prevGutters = gutters(last);
      } else {
        merged.push([...band]);
        prevGutters = g;
      }
    }
    if (merged.length > 1) return merged.flatMap((band) => readingOrder(band, rtl, depth + 1));
  }
  const columns = splitAt(boxes, gaps(boxes, left, right, MIN_GUTTER), left);
  if (columns.length > 1) {
    if (rtl) columns.reverse();
    return columns.flatMap((col) => readingOrder(col, rtl, depth + 1));
  }
  return [...boxes].sort((a, b) => a.y - b.y || a.x - b.x);
}

/** Two bands continue the same columns when a gutter of one lies in a gutter of the other. */
function shareGutter<T extends Box>(
  a: number[],
  b: number[],
  upper: readonly T[],
  lower: readonly T[],
): boolean {
  for (const x of a) {
    if (!b.some((y) => Math.abs(x - y) < 40)) continue;
    // The gutter must be free in both bands, not just near one of theirs.
    if (
      upper.every((box) => box.x > x || right(box) < x) &&
      lower.every((box) => box.x > x || right(box) < x)
    )
      return true;
  }
  return false;
}
