import type { ByteReader } from './byte-reader.ts';

/**
 * Formatted disk pages ([MS-DOC] 2.9.177 PapxFkp, 2.9.34 ChpxFkp): 512-byte pages of the
 * WordDocument stream, listed by a PlcBte in the table stream, that give paragraph or
 * character properties to runs of stream bytes (FCs). Read into one sorted list of runs.
 */
export interface FkpRun {
  fcStart: number;
  fcEnd: number;
  /** The run's property modifiers (for paragraphs: after the 2-byte style index). */
  grpprl: Uint8Array;
  /** Paragraph runs: the style index. */
  istd: number;
}

const PAGE = 512;
const EMPTY: Uint8Array = new Uint8Array(0);

function pageNumbers(table: ByteReader, fc: number, lcb: number): number[] {
  if (lcb < 12 || !table.has(fc, lcb)) return [];
  const n = Math.floor((lcb - 4) / 8);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) seen.add(table.u32(fc + (n + 1) * 4 + i * 4) & 0x3fffff);
  return [...seen];
}

function papxRuns(page: ByteReader, out: FkpRun[]): void {
  const crun = page.u8(PAGE - 1);
  for (let i = 0; i < crun; i++) {
    const fcStart = page.u32(i * 4);
    const fcEnd = page.u32((i + 1) * 4);
    const at = page.u8((crun + 1) * 4 + i * 13) * 2;
    let istd = 0;
    let grpprl = EMPTY;
    if (at > 0) {
      const cb = page.u8(at);
      const start = cb ? at + 1 : at + 2;
      const size = Math.min(cb ? 2 * cb - 1 : 2 * page.u8(at + 1), PAGE - start);
      if (size >= 2) {
        istd = page.u16(start);
        grpprl = page.slice(start + 2, size - 2);
      }
    }
    out.push({ fcStart, fcEnd, grpprl, istd });
  }
}

function chpxRuns(page: ByteReader, out: FkpRun[]): void {
  const crun = page.u8(PAGE - 1);
  for (let i = 0; i < crun; i++) {
    const at = page.u8((crun + 1) * 4 + i) * 2;
    const size = at > 0 ? Math.min(page.u8(at), PAGE - at - 1) : 0;
    out.push({
      fcStart: page.u32(i * 4),
      fcEnd: page.u32((i + 1) * 4),
      grpprl: size > 0 ? page.slice(at + 1, size) : EMPTY,
      istd: 0,
    });
  }
}

export function readFkpRuns(
  table: ByteReader,
  word: ByteReader,
  plcBte: { fc: number; lcb: number },
  kind: 'papx' | 'chpx',
): FkpRun[] {
  const runs: FkpRun[] = [];
  for (const pn of pageNumbers(table, plcBte.fc, plcBte.lcb)) {
    if (!word.has(pn * PAGE, PAGE)) continue;
    const page = word.sub(pn * PAGE, PAGE);
    try {
      if (kind === 'papx') papxRuns(page, runs);
      else chpxRuns(page, runs);
    } catch {
      // A damaged page loses its own runs only.
    }
  }
  return runs.filter((r) => r.fcEnd > r.fcStart).sort((a, b) => a.fcStart - b.fcStart);
}

/** Index of the run holding `fc`, or -1. */
export function runAt(runs: readonly FkpRun[], fc: number): number {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = runs[mid]!;
    if (fc < r.fcStart) hi = mid - 1;
    else if (fc >= r.fcEnd) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Index of the first run starting after `fc` (runs.length when none does). */
export function nextRunAfter(runs: readonly FkpRun[], fc: number): number {
  let lo = 0;
  let hi = runs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (runs[mid]!.fcStart <= fc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
