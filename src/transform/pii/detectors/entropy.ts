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
  // Keys' alphabets (base64, hex, the vendors' `_` and `-`) have no colon: `arn:aws:kms:…` and
  // `user:1234:profile` are names built of parts. Nor does a key end in a file's extension.
  if (value.includes(':') || /\/[^/]*\.[a-z][a-z0-9]{1,4}$/.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/].filter((c) => c.test(value)).length;
  if (classes < 2) return false;
  if (/^[a-f0-9]+$/i.test(value)) return value.length >= 32 && shannonEntropy(value) >= 3.2;
  if (isEncodedText(value)) return false;
  // Mostly letters in long runs is prose or an identifier (camelCase, snake_case), not a key.
  if (!/\d/.test(value) && /^[A-Za-z]+(?:[_.-][A-Za-z]+)*$/.test(value)) return false;
  return shannonEntropy(value) >= 3.7;
}

/**
 * Whether every dot-separated part of a value is base64 of readable text (`e30` is `{}`,
 * `c2lnbmF0dXJl` is `signature`): text dressed as a token, such as a JWT-shaped test value whose
 * header names no algorithm. A key's bytes are random, and random bytes are almost never all
 * printable (under one chance in 10^7 for 12 bytes), so no key is taken for text.
 */
export function isEncodedText(value: string): boolean {
  const parts = value.split('.');
  return parts.every((part) => {
    if (!/^[A-Za-z0-9+/_-]{2,}={0,2}$/.test(part)) return false;
    const bytes = Buffer.from(part, 'base64url');
    if (bytes.length === 0) return false;
    let printable = 0;
    for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x09) printable++;
    return printable === bytes.length;
  });
}
