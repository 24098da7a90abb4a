import { getCountrySpecifications, isValidIBAN } from 'ibantools';
import { type Candidate, Rank } from '../spans.ts';

const specs = getCountrySpecifications();

/**
 * A country code and two check digits, then groups of letters and digits, written together
 * or in blocks of four separated by single spaces (the printed form).
 */
const START = /(?<![A-Za-z0-9])([A-Z]{2})(\d{2})(?=[ ]?[A-Z0-9])/g;

/**
 * IBANs whose check digits (ISO 13616 mod 97) and country format validate (ibantools). The
 * country's length decides where the number ends, so a following word or number never joins it.
 */
export function findIbans(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.matchAll(START)) {
    const length = specs[m[1]!]?.chars;
    if (!length) continue;
    let compact = m[1]! + m[2]!;
    let i = m.index + 4;
    while (compact.length < length && i < text.length) {
      const ch = text[i]!;
      if (/[A-Z0-9]/.test(ch)) compact += ch;
      else if (!(ch === ' ' && /[A-Z0-9]/.test(text[i + 1] ?? ''))) break;
      i++;
    }
    if (compact.length !== length || /[A-Za-z0-9]/.test(text[i] ?? '')) continue;
    if (isValidIBAN(compact)) out.push({ start: m.index, end: i, bucket: 'FINANCIAL', rank: Rank.checksum });
  }
  return out;
}
