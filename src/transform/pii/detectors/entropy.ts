/** Shannon entropy of the string's characters, in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether a value reads as machine-made randomness (a key, a token) rather than a word, a
 * name, a path or a number. Random strings of the alphabets keys use come close to
 * log2(alphabet) bits per character; words, identifiers and repeated placeholders stay well
 * below. Hex has 16 symbols, so its bar is lower than base64's.
 */
export function looksRandom(value: string): boolean {
  if (value.length < 16 || /\s/.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((c) => c.test(value)).length;
  if (classes < 2) return false;
  if (/^[a-f0-9]+$/i.test(value)) return value.length >= 32 && shannonEntropy(value) >= 3.2;
  // Mostly letters in long runs is prose or an identifier (camelCase, snake_case), not a key.
  if (!/\d/.test(value) && /^[A-Za-z]+(?:[_.-][A-Za-z]+)*$/.test(value)) return false;
  return shannonEntropy(value) >= 3.7;
}
