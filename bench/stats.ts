/** Small order statistics for the bench. Every function takes unsorted samples and copies them. */

function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** Median; `null` for no samples. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = sorted(xs);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/** Percentile `p` in [0, 100] by linear interpolation between closest ranks; `null` for no samples. */
export function percentile(xs: readonly number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = sorted(xs);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo]! + (s[hi]! - s[lo]!) * (rank - lo);
}

export function mean(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function max(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : xs.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** `a / b` rounded for a table, or `null` when either side is missing or `b` is zero. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || b === 0) return null;
  return a / b;
}

/** Milliseconds since an arbitrary origin, as a float. */
export function nowMs(): number {
  return performance.now();
}

/**
 * The percentiles among `wanted` that `n` samples support: at least two samples must lie above
 * one, or it is only the maximum (or next to it) renamed. 20 samples support p90, not p99.
 */
export function supportedPercentiles(n: number, wanted: readonly number[] = [50, 90, 99]): number[] {
  // (100 - p) / 100, not 1 - p / 100: 1 - 0.9 is a hair under 0.1, which would drop p90 at n = 20.
  return wanted.filter((p) => (n * (100 - p)) / 100 >= 2);
}
