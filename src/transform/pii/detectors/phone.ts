import {
  type CountryCode,
  findPhoneNumbersInText,
  isSupportedCountry,
  type PhoneNumber,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';
import { countryByName, countryNamePattern } from '../gazetteer/countries.ts';
import { type Candidate, Rank } from '../spans.ts';
import { isFictionalUkNumber } from './phone-fiction.ts';

/** Words just before a number that say it is a phone number. */
const PHONE_LABEL =
  /\b(?:tel|tél|phone|telephone|téléphone|telefon|mobile?|mob|cell|fax|hotline|helpline|whatsapp|handy|call (?:me|us|him|her|them) (?:on|at))\b[^\n\d]{0,24}$/i;

/** Dates and times are written with the same digits and separators; they are never phones. */
const DATE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$/;

/** Runs of digits and the separators phone numbers are written with (up to three between groups). */
const DIGIT_RUN = /(?:\+|\(\+?)?\d(?:[().\-/ \t\u00A0]{0,3}\d)*\)?/g;

/** Shapes that use a phone number's digits and separators but are something else. */
const NOT_A_PHONE = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\d+\.\d+|\d+(?:\.\d+){2,})$/;

/** NANP numbers as written in North America: (613) 555-0187, 613-555-0187, 1-800-555-0199. */
const NANP = /^(?:\+?1[\s.-]?)?\(?[2-9]\d{2}\)?[\s.-]?\d{3}[\s.-]\d{4}$/;

/** Regions tried when a label says a number is a phone but the document points at no region. */
const labelledRegions: CountryCode[] = [
  'FR',
  'DE',
  'AU',
  'IE',
  'NL',
  'ES',
  'IT',
  'BE',
  'CH',
  'AT',
  'NZ',
  'CA',
];

const isValidNumber = (n: PhoneNumber | undefined): boolean =>
  n !== undefined && (n.isValid() || isFictionalUkNumber(n));

/**
 * Phone numbers, each parsed and validated for its region by libphonenumber with its full
 * (`max`) metadata. A `+` (or `00`) number is validated as written. A national number is
 * validated in the regions the document points at (see regionHints), or as a NANP number when
 * written as one, or, when a label says it is a phone, in the common regions; a run of digits
 * with no separators needs that label, since bare digit runs are more often order or account
 * numbers. Ofcom's drama ranges count as valid (see phone-fiction).
 */
export function findPhones(text: string): Candidate[] {
  const out: Candidate[] = [];
  let hints: CountryCode[] | undefined;
  const isPhone = (start: number, raw: string): boolean => {
    if (raw.startsWith('+') || raw.startsWith('00'))
      return isValidNumber(parsePhoneNumberFromString(raw.startsWith('00') ? `+${raw.slice(2)}` : raw));
    const labelled = PHONE_LABEL.test(text.slice(Math.max(0, start - 40), start));
    if (!labelled && !/[\s().-]/.test(raw)) return false;
    const regions: CountryCode[] = [];
    if (NANP.test(raw)) regions.push('US');
    else if (/^\(?0/.test(raw)) {
      hints ??= regionHints(text);
      regions.push(...hints);
    }
    if (labelled) regions.push(...labelledRegions);
    return regions.some((region) => isValidNumber(parsePhoneNumberFromString(raw, region)));
  };
  for (const { start, raw } of candidates(text)) {
    // What follows a number in the same run ("+44 20 3000 0000 (24 h)", a year after it) is
    // dropped group by group until what is left validates, or is too short to be a number.
    for (let end = raw.length; end > 0; end = lastGroupEnd(raw, end)) {
      const part = raw.slice(0, end);
      if (part.replace(/\D/g, '').length < 7 || DATE.test(part) || NOT_A_PHONE.test(part)) break;
      if (isPhone(start, part)) {
        out.push({ start, end: start + end, bucket: 'PHONE', rank: Rank.phone });
        break;
      }
    }
  }
  return out;
}

/** Where the digit group before `end` ends, once the last group is dropped (0 when none is left). */
function lastGroupEnd(raw: string, end: number): number {
  let i = end;
  while (i > 0 && /\d/.test(raw[i - 1]!)) i--;
  while (i > 0 && !/\d/.test(raw[i - 1]!)) i--;
  return i;
}

/**
 * Where numbers could be: each run of digits and separators with seven to fifteen digits (the
 * E.164 range) as it stands, unbalanced brackets trimmed. A longer run is a card, an IBAN or
 * another long number, unless a `+` or a `/` inside it says that numbers are written side by
 * side; then libphonenumber's own search splits it, read as UK and as US text, since where a
 * number ends depends on the region it is read in. (Its search over a whole text is thorough but
 * slow: runs keep the cost to the digits.)
 */
function candidates(text: string): { start: number; raw: string }[] {
  const out: { start: number; raw: string }[] = [];
  for (const run of text.matchAll(DIGIT_RUN)) {
    const digits = run[0].replace(/\D/g, '').length;
    if (digits < 7) continue;
    if (digits <= 15) {
      let raw = run[0];
      let start = run.index;
      // A bracket opened before the number ("(+36 1 234 5678)") is not part of it; "(02) 9876" is.
      if (raw.startsWith('(') && !/^\(\d+\)/.test(raw)) {
        raw = raw.slice(1);
        start++;
      }
      if (raw.endsWith(')') && !/\(\d+\)$/.test(raw)) raw = raw.slice(0, -1);
      out.push({ start, raw });
      continue;
    }
    if (!/.[+/]/.test(run[0])) continue;
    const seen = new Set<number>();
    for (const region of ['GB', 'US'] as const)
      for (const f of findPhoneNumbersInText(run[0], { defaultCountry: region, extended: true })) {
        if (seen.has(f.startsAt)) continue;
        seen.add(f.startsAt);
        out.push({ start: run.index + f.startsAt, raw: run[0].slice(f.startsAt, f.endsAt) });
      }
  }
  return out;
}

/**
 * Regions whose national format a number written without `+` is tried in: those the document
 * points at (the country codes of its international numbers, the country-code domains of its
 * addresses, the countries it names), then the US and the UK, whose national formats are the
 * ones English documents use most.
 */
function regionHints(text: string): CountryCode[] {
  const hints = new Set<CountryCode>();
  for (const m of text.matchAll(/(?<![\w+])\+\d[\d ().-]{6,}\d/g)) {
    const country = parsePhoneNumberFromString(m[0])?.country;
    if (country) hints.add(country);
  }
  for (const m of text.matchAll(/[@.][a-z0-9-]+\.(?:com?\.|org\.|ac\.)?([a-z]{2})(?![\w.-])/gi)) {
    const code = m[1]!.toUpperCase() === 'UK' ? 'GB' : m[1]!.toUpperCase();
    if (isSupportedCountry(code)) hints.add(code);
  }
  for (const m of text.matchAll(countryNamePattern)) {
    const code = countryByName.get(m[0]);
    if (code && isSupportedCountry(code)) hints.add(code);
  }
  hints.add('US');
  hints.add('GB');
  return [...hints];
}
