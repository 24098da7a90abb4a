import retModule, { type Root, type Tokens, types } from 'ret';

/** The package is CommonJS (`module.exports = tokenizer`), which Node gives as the default import; its types do not say so. */
const tokenize = retModule as unknown as (source: string) => Root;

/**
 * Whether a pattern repeats something that itself repeats without bound (`(a+)+`, `(?:x*y)*`):
 * the shape for which JavaScript's backtracking engine can take exponential time on a string
 * built to fail, as a crawled site can build its URLs. An optional part (`?`, `{0,1}`) is no
 * repeat, so `^/blog(?:/.*)?$` passes. A crude test, star height, that refuses some safe
 * patterns; upstream's Rust engine is linear-time and needs none.
 */
export function nestsRepeats(source: string): boolean {
  const walk = (token: Tokens, height: number): boolean => {
    if (token.type === types.REPETITION) {
      const repeated = token.max > 1 ? height + 1 : height;
      return repeated > 1 || walk(token.value, repeated);
    }
    if (token.type === types.ROOT || token.type === types.GROUP)
      return [...(token.stack ?? []), ...(token.options ?? []).flat()].some((t) => walk(t, height));
    return false;
  };
  return walk(tokenize(source), 0);
}
