import { child, type XmlElement } from '../package/xml.ts';
import { LatexBuilder, table } from './latex-text.ts';
import { FUNCTIONS } from './operators.ts';
import { escapeText, mathChar } from './symbols.ts';

/** Where a run sits, which changes how its text reads. */
export interface RunContext {
  /** Inside `m:fName`: a multi-letter word is a function name. */
  fname: boolean;
  /** Directly in an `m:eqArr` row: `&` marks an alignment point. */
  eqArr: boolean;
}

/** `m:scr` font families and the LaTeX style that keeps them. */
const SCRIPTS: Record<string, string> = table({
  'double-struck': '\\mathbb',
  script: '\\mathcal',
  fraktur: '\\mathfrak',
  'sans-serif': '\\mathsf',
  monospace: '\\mathtt',
});
const STYLES: Record<string, string> = table({ b: '\\mathbf', bi: '\\boldsymbol' });

export function mathVal(el: XmlElement | undefined): string | undefined {
  return el ? (el.attrs['m:val'] ?? el.attrs.val) : undefined;
}

/** An OOXML on/off property: present without a value means on. */
export function onOff(el: XmlElement | undefined, fallback: boolean): boolean {
  if (!el) return fallback;
  const v = mathVal(el);
  return v === undefined || !(v === '0' || v === 'off' || v === 'false');
}

/** The text of a run: `m:t` (or `w:t` from some writers), tabs and breaks as spaces. */
function runText(run: XmlElement): string {
  let text = '';
  for (const c of run.children) {
    if (typeof c === 'string') continue;
    if (c.name === 'm:t' || c.name === 'w:t') {
      for (const t of c.children) if (typeof t === 'string') text += t;
    } else if (c.name === 'w:tab' || c.name === 'w:br' || c.name === 'w:cr') text += ' ';
  }
  return text;
}

/** A multi-letter word typed upright: a known function, an operator name, or upright text. */
function word(letters: string, asFunction: boolean): string {
  if (FUNCTIONS.has(letters)) return `\\${letters}`;
  return asFunction ? `\\operatorname{${letters}}` : `\\mathrm{${letters}}`;
}

/** Text that reads the same in LaTeX math mode (the common case, taken without a per-character walk). */
const PLAIN = /^[A-Za-z0-9 +\-=().,;:!?'"<>|/*[\]]*$/;

/**
 * Math-mode LaTeX for text. Upright (`m:sty p`) or function-name words become `\sin`,
 * `\operatorname{...}` or `\mathrm{...}`; styled Unicode letters are grouped under their style.
 */
export function mathText(text: string, upright: boolean, ctx: RunContext): string {
  if (!upright && !ctx.fname && PLAIN.test(text)) return text;
  const out = new LatexBuilder();
  let style = '';
  let group = new LatexBuilder();
  const flush = (): void => {
    const g = group.toString();
    if (g) out.add(style ? `${style}{${g}}` : g);
    group = new LatexBuilder();
    style = '';
  };
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if ((upright || ctx.fname) && /[A-Za-z]/.test(ch)) {
      let j = i + 1;
      while (j < chars.length && /[A-Za-z]/.test(chars[j]!)) j++;
      if (j - i > 1) {
        flush();
        out.add(word(chars.slice(i, j).join(''), ctx.fname));
        i = j - 1;
        continue;
      }
    }
    const mc = ch === '&' && ctx.eqArr ? { latex: '&', style: '' } : mathChar(ch);
    if (mc.style !== style) flush();
    style = mc.style;
    group.add(mc.latex);
  }
  flush();
  return out.toString();
}

/** LaTeX for one `m:r`. Normal-text runs (`m:nor`) become `\text{...}`. */
export function runToLatex(run: XmlElement, ctx: RunContext): string {
  const wrPr = child(run, 'w:rPr');
  if (wrPr && (child(wrPr, 'w:del') || child(wrPr, 'w:moveFrom'))) return '';
  const text = runText(run);
  if (!text) return '';
  const rPr = child(run, 'm:rPr');
  if (rPr && onOff(child(rPr, 'm:nor'), false)) return `\\text{${escapeText(text)}}`;
  const sty = mathVal(rPr && child(rPr, 'm:sty'));
  const body = mathText(text, sty === 'p', ctx);
  const wrap = SCRIPTS[mathVal(rPr && child(rPr, 'm:scr')) ?? ''] ?? STYLES[sty ?? ''];
  return wrap && body.trim() ? `${wrap}{${body}}` : body;
}
