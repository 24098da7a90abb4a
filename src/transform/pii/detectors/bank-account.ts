import { type Candidate, Rank } from '../spans.ts';

/**
 * A bank account number has no checksum to test, so only one a label names is taken:
 * "Account number: 55779911", "account no. 000123456789", "Kontonummer 1234567". The number is
 * 6 to 17 digits (the range US and UK accounts use), in groups split by single spaces or hyphens.
 */
const LABELLED =
  /\b(?:(?:bank|checking|savings|salary|current|deposit)\s+)?(?:account|acct|a\/c|kontonummer|konto|numéro de compte|compte)(?:\s+(?:number|no\.?|nr\.?|#))?\s*[:#]?\s*(\d(?:[ -]?\d){5,16})(?![\w-]|[.,]\d)/gi;

export function findBankAccounts(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.matchAll(LABELLED)) {
    const number = m[1]!;
    const start = m.index + m[0].length - number.length;
    out.push({ start, end: start + number.length, bucket: 'FINANCIAL', rank: Rank.labelled });
  }
  return out;
}
