/** Prices as pages write them: amounts in any digit grouping, currencies as symbols or ISO codes. */

export interface Price {
  amount: number;
  /** ISO 4217, when the page says which. */
  currency?: string;
  /** As the page shows it, when it shows it. */
  formatted?: string;
}

/** Symbols that name one currency; `$` alone is read as USD unless the page says otherwise. */
const SYMBOLS: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '¥': 'JPY',
  '₹': 'INR',
  '₩': 'KRW',
  '₽': 'RUB',
  '₺': 'TRY',
  '₪': 'ILS',
  '₫': 'VND',
  '₴': 'UAH',
  '₱': 'PHP',
  '฿': 'THB',
  zł: 'PLN',
  kr: 'SEK',
  CHF: 'CHF',
  US$: 'USD',
  A$: 'AUD',
  AU$: 'AUD',
  C$: 'CAD',
  CA$: 'CAD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  R$: 'BRL',
  $: 'USD',
};

/** ISO 4217 codes, as the runtime's Intl knows them. */
const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

/** A currency as a page names it (symbol or ISO code) in ISO 4217, or undefined. */
export function currencyCode(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const t = text.trim();
  if (ISO_CODES.has(t.toUpperCase()) && t === t.toUpperCase()) return t;
  return SYMBOLS[t];
}

/**
 * A number as written with either grouping: "1,299.00", "1.299,00", "1 299,00", "12,5", "1299".
 * The last separator is the decimal mark, unless exactly three digits follow it and the other
 * mark does not occur ("12,500" and "1.299" are thousands).
 */
export function parseAmount(text: string): number | undefined {
  const t = text.replace(/[\s\u00a0\u202f']/g, '');
  if (!/^\d[\d.,]*$/.test(t)) return undefined;
  const last = Math.max(t.lastIndexOf('.'), t.lastIndexOf(','));
  let number: string;
  if (last < 0) number = t;
  else {
    const decimals = t.length - last - 1;
    const mark = t[last];
    const marks = t.split(mark!).length - 1;
    const otherMark = mark === '.' ? ',' : '.';
    if (decimals === 3 && marks >= 1 && !t.includes(otherMark)) number = t.replace(/[.,]/g, '');
    else number = `${t.slice(0, last).replace(/[.,]/g, '')}.${t.slice(last + 1)}`;
  }
  const value = Number(number);
  return Number.isFinite(value) ? value : undefined;
}

const SYMBOL_SOURCE = Object.keys(SYMBOLS)
  .sort((a, b) => b.length - a.length)
  .map((s) => s.replace(/[$]/g, '\\$'))
  .join('|');
const AMOUNT = '\\d{1,3}(?:[.,\\s\u00a0\u202f]\\d{3})*(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?';
/** "$1,299.00", "1.299,00 €", "EUR 12.50", "12,50 EUR". */
export const PRICE_PATTERN = new RegExp(
  `(?:(${SYMBOL_SOURCE}|\\b[A-Z]{3}\\b)\\s?(${AMOUNT}))|(?:(${AMOUNT})\\s?(${SYMBOL_SOURCE}|\\b[A-Z]{3}\\b))`,
  'gu',
);

/** The prices in `text` whose currency is known (a symbol, or an ISO code), in order. */
export function findPrices(text: string): Price[] {
  const out: Price[] = [];
  for (const m of text.matchAll(PRICE_PATTERN)) {
    const currency = currencyCode(m[1] ?? m[4]);
    const amount = parseAmount(m[2] ?? m[3] ?? '');
    if (amount !== undefined && currency !== undefined)
      out.push({ amount, currency, formatted: m[0].trim() });
  }
  return out;
}
