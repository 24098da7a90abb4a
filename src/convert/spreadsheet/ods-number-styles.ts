import { limits } from '../../limits.ts';

const DIGIT_COUNT =
  /number:(?:min-integer-digits|decimal-places|min-decimal-places|min-exponent-digits|min-numerator-digits|min-denominator-digits|max-denominator-value|denominator-value)\s*=\s*["'](\d+)/g;

/**
 * An OpenDocument part with the digit counts of its number styles held to
 * limits.odsNumberStyleDigits, before SheetJS builds format strings from them (see there).
 * Written over in place, same length: leading zeros, which SheetJS's `+value` reads away.
 */
export function capNumberStyleDigits(data: Buffer): Buffer {
  if (!data.includes('number:')) return data;
  let out = data;
  const cap = String(limits.odsNumberStyleDigits);
  for (const m of data.toString('latin1').matchAll(DIGIT_COUNT)) {
    const digits = m[1]!;
    if (Number(digits) <= limits.odsNumberStyleDigits) continue;
    // Copied before the first change: the bytes may be a view of the upload.
    if (out === data) out = Buffer.from(data);
    const at = m.index + m[0].length - digits.length;
    out.write(cap.padStart(digits.length, '0'), at, 'latin1');
  }
  return out;
}
