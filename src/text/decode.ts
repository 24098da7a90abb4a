import chardet from 'chardet';
import { limits } from '../limits.ts';

export interface DecodedText {
  text: string;
  /** WHATWG encoding name that was used. */
  encoding: string;
}

/** Multi-byte legacy encodings chardet often misses on short files; tried when UTF-8 fails. */
const CJK_CANDIDATES = ['shift_jis', 'euc-jp', 'euc-kr', 'big5', 'gb18030'];

export function bomEncoding(bytes: Uint8Array): { encoding: string; skip: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', skip: 2 };
  return undefined;
}

/** ASCII text in UTF-16 without a BOM has a zero in every other byte. */
export function bomlessUtf16(bytes: Uint8Array): string | undefined {
  const n = Math.min(bytes.length, 1024) & ~1;
  if (n < 4) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const pairs = n / 2;
  if (odd > pairs * 0.6 && even < pairs * 0.1) return 'utf-16le';
  if (even > pairs * 0.6 && odd < pairs * 0.1) return 'utf-16be';
  return undefined;
}

function tryDecode(bytes: Uint8Array, encoding: string): string | undefined {
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function isKnownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/**
 * How plausible a decoding looks as human text: letters, ideographs and ASCII score,
 * C1 controls, private-use and replacement characters (the marks of a wrong guess) cost.
 */
function plausibility(sample: string): number {
  let score = 0;
  for (const ch of sample) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) score += 1;
    else if (c >= 0x80 && c < 0xa0) score -= 8;
    else if (c === 0xfffd || (c >= 0xe000 && c < 0xf900)) score -= 8;
    else if (c >= 0xff61 && c <= 0xff9f) score -= 1;
    else if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(ch)) score += 2;
    else if (/\p{L}/u.test(ch)) score += 1;
    else score -= 1;
  }
  return score / Math.max(1, sample.length);
}

/**
 * Decode bytes whose charset is not certain: a BOM wins, then a declared charset (from a
 * Content-Type or an HTML meta tag), then strict UTF-8, then the most plausible of the
 * legacy encodings that chardet and the CJK list propose. windows-1252 never fails, so it
 * is the last resort.
 */
export function decodeText(bytes: Uint8Array, declared?: string): DecodedText {
  const bom = bomEncoding(bytes);
  if (bom)
    return { text: new TextDecoder(bom.encoding).decode(bytes.subarray(bom.skip)), encoding: bom.encoding };
  if (declared && isKnownEncoding(declared)) {
    const encoding = new TextDecoder(declared).encoding;
    // A page that declares UTF-8 but is not is common; only trust a declaration that decodes.
    const text = encoding === 'utf-8' ? tryDecode(bytes, 'utf-8') : new TextDecoder(encoding).decode(bytes);
    if (text !== undefined) return { text, encoding };
  }
  const utf16 = bomlessUtf16(bytes);
  if (utf16) return { text: new TextDecoder(utf16).decode(bytes), encoding: utf16 };
  const utf8 = tryDecode(bytes, 'utf-8');
  if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8' };

  const sample = bytes.subarray(0, limits.sniffBytes);
  const guesses = chardet
    .analyse(sample)
    .filter((g) => g.confidence >= 10 && isKnownEncoding(g.name))
    .map((g) => g.name.toLowerCase());
  let best: { encoding: string; score: number } | undefined;
  for (const encoding of new Set([...guesses, ...CJK_CANDIDATES, 'windows-1252'])) {
    // Cut at a line end so that a multi-byte character is not split by the sample window.
    const cut = sample.length < bytes.length ? sample.lastIndexOf(0x0a) + 1 || sample.length : sample.length;
    const text = tryDecode(sample.subarray(0, cut), encoding);
    if (text === undefined) continue;
    const score = plausibility(text);
    if (!best || score > best.score) best = { encoding, score };
  }
  const encoding = new TextDecoder(best?.encoding ?? 'windows-1252').encoding;
  return { text: new TextDecoder(encoding).decode(bytes), encoding };
}
