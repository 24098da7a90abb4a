import type { Segment } from '../page-content.ts';

/** An axis-aligned ruling: `pos` is y for a horizontal line and x for a vertical one, [from, to] its extent. */
export interface Ruling {
  pos: number;
  from: number;
  to: number;
}

/** Lines closer than this (points) are one line: double borders, hairline gaps, rounding. */
export const SNAP = 2;
/** Strokes shorter than this are glyph parts, ticks or dots rather than rules. */
const MIN_LENGTH = 3;
/** Anything thicker is a filled area, not a rule (its edges still count when drawn as fill edges). */
const MAX_THICKNESS = 6;

export interface Rulings {
  horizontal: Ruling[];
  vertical: Ruling[];
}

/** Splits segments into horizontal and vertical rulings, snapping near-collinear ones and merging overlaps. */
export function findRulings(segments: readonly Segment[]): Rulings {
  const hs: Ruling[] = [];
  const vs: Ruling[] = [];
  for (const s of segments) {
    if (s.lineWidth > MAX_THICKNESS) continue;
    const dx = Math.abs(s.x2 - s.x1);
    const dy = Math.abs(s.y2 - s.y1);
    if (dy <= 1 && dx >= MIN_LENGTH) {
      hs.push({ pos: (s.y1 + s.y2) / 2, from: Math.min(s.x1, s.x2), to: Math.max(s.x1, s.x2) });
    } else if (dx <= 1 && dy >= MIN_LENGTH) {
      vs.push({ pos: (s.x1 + s.x2) / 2, from: Math.min(s.y1, s.y2), to: Math.max(s.y1, s.y2) });
    }
  }
  return { horizontal: merge(hs), vertical: merge(vs) };
}

/** Clusters rulings by position (within SNAP), then joins pieces along each cluster that touch or overlap. */
function merge(lines: Ruling[]): Ruling[] {
  lines.sort((a, b) => a.pos - b.pos);
  const out: Ruling[] = [];
  let i = 0;
  while (i < lines.length) {
    let j = i + 1;
    while (j < lines.length && lines[j]!.pos - lines[j - 1]!.pos <= SNAP) j++;
    const group = lines.slice(i, j).sort((a, b) => a.from - b.from);
    let sum = 0;
    for (const l of group) sum += l.pos;
    const pos = sum / group.length;
    let cur: Ruling = { pos, from: group[0]!.from, to: group[0]!.to };
    for (let k = 1; k < group.length; k++) {
      const l = group[k];
      if (l!.from <= cur.to + SNAP) cur.to = Math.max(cur.to, l!.to);
      else {
        out.push(cur);
        cur = { pos, from: l!.from, to: l!.to };
      }
    }
    out.push(cur);
    i = j;
  }
  return out;
}

/** Whether a ruling at `pos` covers most of the span [a, b] along its length. */
export function covers(lines: readonly Ruling[], pos: number, a: number, b: number): boolean {
  let covered = 0;
  for (const l of lines) {
    if (Math.abs(l.pos - pos) > SNAP) continue;
    const lo = Math.max(a, l.from);
    const hi = Math.min(b, l.to);
    if (hi > lo) covered += hi - lo;
  }
  return covered >= (b - a) * 0.6;
}
