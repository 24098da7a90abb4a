import { type Candidate, Rank } from '../spans.ts';

/** 12 to 19 digits, together or in groups split by single spaces or hyphens. */
const DIGITS = /(?<![\w.,/-])\d(?:[ -]?\d){11,18}(?![\w/]|[.,-]\d)/g;

/** The Luhn (mod 10) check every payment card number carries. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * Issuer prefixes and lengths of the card networks (ISO/IEC 7812 IIN ranges as the networks
 * publish them). A number must fit one, as well as pass Luhn: one in ten digit runs passes Luhn
 * by chance, far fewer also start like a card of their length.
 */
const networks: { prefix: RegExp; lengths: readonly number[] }[] = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(?:6011|64[4-9]|65)/, lengths: [16, 19] }, // Discover
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] }, // JCB
  { prefix: /^3(?:0[0-5]|[689])/, lengths: [14, 16] }, // Diners Club
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
  { prefix: /^(?:50|5[6-9]|6[0-9])/, lengths: [16, 17, 18, 19] }, // Maestro (not the rarer short ones)
];

/** Payment card numbers: a network's prefix and length, and a valid Luhn check digit. */
export function findPaymentCards(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.matchAll(DIGITS)) {
    const raw = m[0];
    // One kind of separator, used between groups: "4111-1111 1111" is two numbers, not a card.
    if (raw.includes(' ') && raw.includes('-')) continue;
    const digits = raw.replace(/[ -]/g, '');
    if (!networks.some((n) => n.lengths.includes(digits.length) && n.prefix.test(digits))) continue;
    if (/^(\d)\1+$/.test(digits) || !luhnValid(digits)) continue;
    out.push({ start: m.index, end: m.index + raw.length, bucket: 'FINANCIAL', rank: Rank.checksum });
  }
  return out;
}
