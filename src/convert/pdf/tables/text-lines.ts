import type { TextRun } from '../page-content.ts';

/** Runs sharing a baseline band, left to right. */
export interface TextLine {
  runs: number[];
  top: number;
  bottom: number;
  /** Median-ish font size of the line, for gap thresholds. */
  fontSize: number;
}

/**
 * Groups runs into lines: sorted by vertical centre, a run joins the current line when it
 * overlaps the line's band by half the smaller height. O(n log n).
 */
export function groupLines(runs: readonly TextRun[], indices: readonly number[]): TextLine[] {
  const order = [...indices].sort((a, b) => centre(runs[a]!) - centre(runs[b]!));
  const lines: TextLine[] = [];
  let cur: TextLine | null = null;
  for (const i of order) {
    const r = runs[i];
    const h = Math.max(r!.height, 1);
    if (cur) {
      const overlap = Math.min(cur.bottom, r!.y + h) - Math.max(cur.top, r!.y);
      if (overlap >= 0.5 * Math.min(h, cur.bottom - cur.top)) {
        cur.runs.push(i);
        cur.top = Math.min(cur.top, r!.y);
        cur.bottom = Math.max(cur.bottom, r!.y + h);
        cur.fontSize = Math.max(cur.fontSize, r!.fontSize);
        continue;
      }
    }
    cur = { runs: [i], top: r!.y, bottom: r!.y + h, fontSize: r!.fontSize || h };
    lines.push(cur);
  }
  for (const l of lines) l.runs.sort((a, b) => runs[a]!.x - runs[b]!.x);
  return lines;
}

function centre(r: TextRun): number {
  return r.y + r.height / 2;
}

/** Joins runs of one line left to right: a space where the gap is visible, none where a word was split. */
export function joinLine(runs: readonly TextRun[], line: readonly number[]): string {
  let text = '';
  let end = Number.NEGATIVE_INFINITY;
  for (const i of line) {
    const r = runs[i];
    const piece = r!.text.trim();
    if (!piece) continue;
    if (text && (r!.x - end > 0.15 * r!.fontSize || /\s$/.test(r!.text) || /^\s/.test(r!.text))) text += ' ';
    text += piece;
    end = Math.max(end, r!.x + r!.width);
  }
  return text;
}

/** The text of a table cell: its lines top to bottom, joined with spaces. */
export function cellText(runs: readonly TextRun[], indices: readonly number[]): string {
  if (indices.length === 0) return '';
  if (indices.length === 1) return runs[indices[0]!]!.text.trim();
  let text = '';
  for (const line of groupLines(runs, indices)) {
    const part = joinLine(runs, line.runs);
    if (!part) continue;
    // CJK text wraps without spaces.
    text += text && !(CJK.test(text.slice(-1)) && CJK.test(part[0]!)) ? ` ${part}` : part;
  }
  return text;
}

const CJK = /[\u3000-\u9fff\uff00-\uffef]/;

const NUMERIC = /^[([]?[-+−–]?[$€£¥]?\s?\d[\d.,\s]*%?[)\]]?[*a-z]?$|^[-–—]$|^n\/?a$/i;

/** Whether a cell reads as a number (amounts, percentages, dashes for "none"). */
export function isNumeric(text: string): boolean {
  return NUMERIC.test(text.trim());
}
