import type { Paragraph } from './paragraphs.ts';

/** A paragraph this much larger than the body text is a heading. */
const HEADING_RATIO = 1.15;
/** Captions are set like headings but belong to their figure or table. */
const CAPTION =
  /^(figure|fig\.|table|example|listing|chart|exhibit|abbildung|tabelle)\s+([a-z]-?)?\d+([-.:]\d+)*/i;
const NUMBERED_TITLE = /^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+\p{Lu}/u;

function round(size: number): number {
  return Math.round(size * 2) / 2;
}

/** The body text size: the size carrying the most characters in the document. */
export function bodySize(paragraphs: readonly Paragraph[]): number {
  const weight = new Map<number, number>();
  for (const p of paragraphs)
    for (const l of p.lines)
      weight.set(round(l.fontSize), (weight.get(round(l.fontSize)) ?? 0) + l.text.length);
  let best = 10;
  let most = -1;
  for (const [size, w] of weight) if (w > most) [best, most] = [size, w];
  return best;
}

function text(p: Paragraph): string {
  return p.lines
    .map((l) => l.text)
    .join(' ')
    .trim();
}

/** Why a paragraph is a heading, or undefined when it is not one. */
export function headingKind(
  p: Paragraph,
  body: number,
  next: Paragraph | undefined,
): 'size' | 'bold' | undefined {
  if (p.code || p.list || p.lines.length > 3) return undefined;
  const t = text(p);
  if (t.length < 2 || t.length > 160 || !/\p{L}/u.test(t) || CAPTION.test(t)) return undefined;
  if (p.fontSize >= body * HEADING_RATIO) return 'size';
  if (!(p.bold || (p.italic && t.length <= 60)) || p.lines.length > 2 || t.length > 100 || /[.,;:]$/.test(t))
    return undefined;
  // A bold line followed by more bold lines is emphasis, not a title.
  if (
    (p.bold ? next?.bold : next?.italic) &&
    next!.fontSize <= p.fontSize &&
    next!.page === p.page &&
    !NUMBERED_TITLE.test(t)
  )
    return undefined;
  return 'bold';
}

/**
 * Heading levels for the document. h1 is kept for a title: the largest heading size, used
 * once. Section levels start at h2 and go one down for each larger size that recurs among
 * the headings (sizes used once, as on a cover page, do not push the sections down); bold
 * or italic body-size headings come last; nothing goes below h3.
 */
export function headingLevels(
  headings: readonly { p: Paragraph; kind: 'size' | 'bold' }[],
): (p: Paragraph, kind: 'size' | 'bold') => number {
  const counts = new Map<number, number>();
  for (const h of headings)
    if (h.kind === 'size') counts.set(round(h.p.fontSize), (counts.get(round(h.p.fontSize)) ?? 0) + 1);
  const frequent = [...counts].filter(([, n]) => n >= 2).map(([size]) => size);
  const largest = Math.max(...counts.keys());
  const title = counts.get(largest) === 1 && headings.length > 1 ? largest : undefined;
  return (p, kind) => {
    if (kind === 'bold') return Math.min(3, 2 + frequent.length);
    const size = round(p.fontSize);
    if (size === title) return 1;
    return Math.min(3, 2 + frequent.filter((f) => f > size && f !== title).length);
  };
}
