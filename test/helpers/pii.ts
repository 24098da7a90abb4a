import type { PiiSpan } from '../../src/transform/pii/spans.ts';

/**
 * What the PII unit tests share: a seeded generator, so each run makes the same inputs (a failure
 * names the value that failed and reproduces), and spans shown as the text they cover.
 */

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same inputs. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const from = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[int(alphabet.length)]!).join('');
  return {
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    /** `length` characters drawn from `alphabet`. */
    from,
    digits: (length: number) => from('0123456789', length),
  };
}

export type Seeded = ReturnType<typeof seeded>;

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const HEX = '0123456789abcdef';

/** The spans a detector or the engine found, as `[covered text, bucket]`, in order. */
export function shown(text: string, spans: readonly PiiSpan[]): [string, string][] {
  return [...spans].sort((a, b) => a.start - b.start).map((s) => [text.slice(s.start, s.end), s.bucket]);
}
