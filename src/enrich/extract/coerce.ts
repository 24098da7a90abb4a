import type { JsonValue } from '../json.ts';
import type { Shape } from './schema-shape.ts';

/**
 * A value as the document writes it, turned into what the schema asks for. Undefined when it
 * cannot be (a word where a number is wanted): the property is then left out, never guessed.
 */

/**
 * "1,234.50", "$ 1 234,50", "€1.234,50", "(120.00)" (an accountant's negative), "12 %". The
 * decimal mark is the last of `.` and `,` when both appear, and a lone one followed by exactly
 * three digits is a thousands separator.
 */
export function parseNumber(text: string): number | undefined {
  const m =
    /(?<![\p{L}\p{N}])(\(?)([-−+]?)\s*(?:[$€£¥₹]|[A-Z]{3}\s)?\s*(\d{1,3}(?:[ \u00a0\u202f'’.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)/u.exec(
      text,
    );
  if (!m) return undefined;
  let digits = m[3]!.replace(/[\s'’]/g, '');
  const lastDot = digits.lastIndexOf('.');
  const lastComma = digits.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    digits = digits.replace(decimal === '.' ? /,/g : /\./g, '').replace(',', '.');
  } else if (lastComma >= 0 || lastDot >= 0) {
    const mark = lastComma >= 0 ? ',' : '.';
    const parts = digits.split(mark);
    const thousands = parts.length > 2 || (parts[1]!.length === 3 && parts[0] !== '0');
    digits = thousands ? parts.join('') : parts.join('.');
  }
  const value = Number(digits);
  if (!Number.isFinite(value)) return undefined;
  const negative = m[2] === '-' || m[2] === '−' || (m[1] === '(' && /\)/.test(text.slice(m.index)));
  return negative ? -value : value;
}

const TRUE = /^(?:yes|y|true|on|x|☑|✓|✔|checked|enabled|included|available|in stock|ja|oui|sí|si)\b/i;
const FALSE =
  /^(?:no|n|false|off|☐|✗|✘|unchecked|disabled|not included|unavailable|out of stock|none|nein|non)\b/i;

export function parseBoolean(text: string): boolean | undefined {
  const t = text.trim();
  if (FALSE.test(t)) return false;
  if (TRUE.test(t)) return true;
  return undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function iso(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return undefined;
  return date.toISOString().slice(0, 10);
}

function monthNumber(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

function fullYear(y: string): number {
  const n = Number(y);
  return y.length === 2 ? (n < 70 ? 2000 + n : 1900 + n) : n;
}

/**
 * A calendar date as `YYYY-MM-DD`. Numeric dates are read year first (ISO), day first with dots
 * (15.03.2024, the European habit), and with slashes as the document's habit says (`dayFirst`)
 * unless one of the numbers cannot be a month.
 */
export function parseDate(text: string, dayFirst = false): string | undefined {
  let m = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/.exec(text);
  if (m) return iso(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /\b(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})\b/.exec(text);
  if (m) {
    const [a, b, year] = [Number(m[1]), Number(m[3]), fullYear(m[4]!)];
    const dayComesFirst = a > 12 || (b <= 12 && (m[2] === '.' || dayFirst));
    return dayComesFirst ? iso(year, b, a) : iso(year, a, b);
  }
  m = /\b(\d{1,2})(?:st|nd|rd|th)?[\s-]+([A-Za-z]{3,9})\.?,?[\s-]+(\d{4})\b/.exec(text);
  if (m && monthNumber(m[2]!) > 0) return iso(Number(m[3]), monthNumber(m[2]!), Number(m[1]));
  m = /\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/.exec(text);
  if (m && monthNumber(m[1]!) > 0) return iso(Number(m[3]), monthNumber(m[1]!), Number(m[2]));
  return undefined;
}

/** An enum member the text names, compared without case, spaces or punctuation. */
function enumMember(text: string, members: string[]): string | undefined {
  const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const wanted = key(text);
  return (
    members.find((m) => key(m) === wanted) ??
    members.find(
      (m) => key(m).length > 2 && new RegExp(`\\b${m.replace(/[^\w\s]/g, '.')}\\b`, 'i').test(text),
    )
  );
}

/** What the whole document tells about how to read its values. */
export interface Habits {
  /** Slash dates are written day first (the document's money is in pounds or euros). */
  dayFirst: boolean;
}

function coerceString(
  text: string,
  shape: Extract<Shape, { type: 'string' }>,
  habits: Habits,
): string | undefined {
  const value = text.trim();
  if (!value) return undefined;
  if (shape.enum && shape.enum.length > 0) return enumMember(value, shape.enum);
  switch (shape.format) {
    case 'date':
      return parseDate(value, habits.dayFirst);
    case 'date-time': {
      const date = new Date(value);
      return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
    }
    case 'email':
      return /[^\s@<>()]+@[^\s@<>()]+\.[^\s@<>().,;]+/.exec(value)?.[0];
    case 'uri':
    case 'url':
      return /\bhttps?:\/\/\S+[^\s.,;)]/.exec(value)?.[0];
    default:
      return value;
  }
}

/** Items of a list written on one line: "Go, Rust; SQL" or "Go • Rust". */
export function splitList(text: string): string[] {
  const separator = /\n/.test(text) ? /\n/ : /\s*[,;•·|]\s*|\s+\/\s+/;
  return text
    .split(separator)
    .map((s) => s.replace(/^[-*•]\s*/, '').trim())
    .filter(Boolean);
}

export function coerce(text: string, shape: Shape, habits: Habits): JsonValue | undefined {
  switch (shape.type) {
    case 'string':
      return coerceString(text, shape, habits);
    case 'number':
      return parseNumber(text);
    case 'integer': {
      const n = parseNumber(text);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case 'boolean':
      return parseBoolean(text);
    case 'array': {
      const items = splitList(text)
        .map((item) => coerce(item, shape.items, habits))
        .filter((v) => v !== undefined);
      return items.length > 0 ? items : undefined;
    }
    case 'unknown':
      return text.trim() || undefined;
    case 'object':
      return undefined;
  }
}
