import type { TextRun } from '../page-content.ts';
import type { TextLine } from './text-lines.ts';

/** Gap between words on a line, in ems, that separates cells rather than words. */
export const CELL_GAP = 0.8;

/** A word with its estimated extent (runs hold several words; glyph positions are not kept). */
export interface Word {
  x0: number;
  x1: number;
  text: string;
  run: number;
  /** A cell-sized gap (or a dot leader) separates it from the word before. */
  breakBefore: boolean;
  bold: boolean;
}

export interface WordLine {
  top: number;
  bottom: number;
  fontSize: number;
  words: Word[];
  /** Stretches between cell-sized gaps. */
  chunks: number;
}

/** Dot leaders between a label and its value ("Maine ........ 13,278") are layout, not text. */
const LEADER = /[.·…_]{3,}$/;
const CURRENCY = /^[$€£¥]$/;

/** Splits a line's runs into words, spreading each run's width over its characters. */
export function toWordLine(runs: readonly TextRun[], line: TextLine): WordLine {
  const words: Word[] = [];
  const em = Math.max(line.fontSize, 4);
  let leader = false;
  for (const i of line.runs) {
    const r = runs[i];
    const perChar = r!.text.length ? r!.width / r!.text.length : 0;
    for (const m of r!.text.matchAll(/\S+/g)) {
      let text = m[0];
      const x0 = r!.x + (m.index ?? 0) * perChar;
      const dots = LEADER.exec(text);
      if (dots) text = text.slice(0, dots.index);
      if (!text) {
        leader = true;
        continue;
      }
      const prev = words[words.length - 1];
      const breakBefore = !prev || leader || x0 - prev.x1 > CELL_GAP * em;
      words.push({ x0, x1: x0 + text.length * perChar, text, run: i, breakBefore, bold: r!.bold });
      leader = Boolean(dots);
    }
  }
  // A currency sign set apart from its amount ("$      178") belongs to the amount's cell.
  for (let k = words.length - 2; k >= 0; k--) {
    const w = words[k]!;
    const next = words[k + 1]!;
    if (!CURRENCY.test(w.text) || !/^[\d(.-]/.test(next.text)) continue;
    words.splice(k, 2, { ...next, x0: w.x0, text: `${w.text}${next.text}`, breakBefore: w.breakBefore });
  }
  let chunks = 0;
  for (const w of words) if (w.breakBefore) chunks++;
  return { top: line.top, bottom: line.bottom, fontSize: line.fontSize, words, chunks };
}
