/**
 * Field-level comparison of an extraction with the expected JSON: every leaf (a string, number
 * or boolean, at its path, list positions included) is one field, right when the answer holds the
 * same value at the same path after normalisation.
 */
export type Leaf = string | number | boolean;

/** `lines[1].unitPrice` → value, for every leaf; nulls and empty lists hold no field. */
export function leaves(value: unknown, path = '', into = new Map<string, Leaf>()): Map<string, Leaf> {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) leaves(v, `${path}[${i}]`, into);
  } else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, into);
  else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    into.set(path, value);
  return into;
}

/** Case, spacing, dash and quote styles and trailing punctuation do not count. */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‐‑‒–—−]/g, '-')
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, ' ')
    .replace(/[\s.,;:]+$/, '')
    .trim();
}

export function same(expected: Leaf, actual: Leaf | undefined): boolean {
  if (actual === undefined) return false;
  if (typeof expected === 'number') return typeof actual === 'number' && Math.abs(expected - actual) < 1e-6;
  if (typeof expected === 'boolean') return actual === expected;
  return typeof actual === 'string' && normalise(actual) === normalise(expected);
}

export interface Tally {
  expected: number;
  produced: number;
  correct: number;
}

export interface Mismatch {
  path: string;
  expected: Leaf | undefined;
  actual: Leaf | undefined;
}

export function compare(expected: unknown, actual: unknown, tally: Tally, mismatches?: Mismatch[]): void {
  const want = leaves(expected);
  const got = leaves(actual);
  tally.expected += want.size;
  tally.produced += got.size;
  for (const [path, value] of want) {
    if (same(value, got.get(path))) tally.correct++;
    else mismatches?.push({ path, expected: value, actual: got.get(path) });
  }
  if (mismatches)
    for (const [path, value] of got)
      if (!want.has(path)) mismatches.push({ path, expected: undefined, actual: value });
}
