import { limits } from '../../limits.ts';
import { child, childrenNamed, textOf, type XmlElement } from '../package/xml.ts';
import { isAtom, LatexBuilder, table, tidy } from './latex-text.ts';
import {
  ACCENTS,
  DELIMITERS,
  GROUP_BOTTOM,
  GROUP_TOP,
  INTEGRALS,
  LIMIT_OPERATORS,
  MATRIX_ENVIRONMENTS,
  NARY,
  WIDE_ACCENTS,
} from './operators.ts';
import { mathText, mathVal, onOff, type RunContext, runToLatex } from './run-text.ts';
import { escapeText } from './symbols.ts';

/**
 * Office Math (OMML, ECMA-376 Part 1 §22.1) to LaTeX, for DOCX and PPTX equations.
 * `el` is an `m:oMath` or `m:oMathPara`; the result is the LaTeX body without `$` delimiters.
 * Every construct maps to its usual LaTeX spelling; unknown elements are walked through so
 * their text survives. Recursion follows the XML tree, whose depth the parser caps.
 */
export function ommlToLatex(el: XmlElement): string {
  return tidy(convert(el, { fname: false, eqArr: false, depth: 0 }));
}

interface Ctx extends RunContext {
  depth: number;
}
type Handler = (el: XmlElement, ctx: Ctx) => string;

/** Elements whose content is never shown. */
const HIDDEN = new Set(['w:del', 'w:moveFrom', 'w:delText', 'w:instrText', 'mc:Fallback']);
/** Handled elements that are text or wrappers rather than constructs. */
const TRANSPARENT = new Set(['m:r', 'm:t', 'mc:AlternateContent']);

function convert(el: XmlElement, ctx: Ctx): string {
  if (el.name.endsWith('Pr') || HIDDEN.has(el.name)) return '';
  if (ctx.depth > limits.xmlDepth) return mathText(textOf(el), false, ctx);
  const next = { ...ctx, depth: ctx.depth + 1 };
  const handler = HANDLERS[el.name];
  if (!handler) return inner(el, next);
  // Constructs open a new group: `&` in them is text, not an eqArr alignment point.
  return handler(el, TRANSPARENT.has(el.name) ? next : { ...next, eqArr: false });
}

/** The children of an element in order (argument elements such as `m:e` are just containers). */
function inner(el: XmlElement, ctx: Ctx): string {
  const out = new LatexBuilder();
  for (const c of el.children) if (typeof c !== 'string') out.add(convert(c, ctx));
  return out.toString();
}

/** The content of the named argument (`m:e`, `m:num`, `m:sup` ...), trimmed. */
function arg(el: XmlElement, name: string, ctx: Ctx): string {
  const a = child(el, name);
  return a ? inner(a, ctx).trim() : '';
}

function prop(el: XmlElement, name: string): XmlElement | undefined {
  const pr = child(el, `${el.name}Pr`);
  return pr && child(pr, name);
}

/** A character property (`m:chr`, `m:begChr` ...): absent means the default, present without a value means none. */
function charProp(el: XmlElement, name: string, fallback: string): string {
  const p = prop(el, name);
  return p ? (mathVal(p) ?? '') : fallback;
}

/** A character property's value as math text (a value may hold several characters, or junk). */
function chars(value: string): string {
  return mathText(value, false, { fname: false, eqArr: false });
}

/** The single construct an argument holds, if it holds exactly one. */
function sole(el: XmlElement | undefined): XmlElement | undefined {
  if (!el) return undefined;
  let only: XmlElement | undefined;
  for (const c of el.children) {
    if (typeof c === 'string' || c.name.endsWith('Pr')) continue;
    if (only) return undefined;
    only = c;
  }
  return only;
}

/** A script base, braced unless it is one symbol or a delimited group (`{\frac{a}{b}}^{2}`). */
function base(el: XmlElement, ctx: Ctx): string {
  const e = child(el, 'm:e');
  const latex = e ? inner(e, ctx).trim() : '';
  if (latex === '') return '{}';
  return isAtom(latex) || sole(e)?.name === 'm:d' ? latex : `{${latex}}`;
}

/** Scripts start afresh: a function name's base does not make its subscript a name too. */
function script(el: XmlElement, name: string, mark: '_' | '^', ctx: Ctx): string {
  const s = arg(el, name, { ...ctx, fname: false });
  return s ? `${mark}{${s}}` : '';
}

function matrixRows(m: XmlElement, ctx: Ctx): string {
  return childrenNamed(m, 'm:mr')
    .map((row) =>
      childrenNamed(row, 'm:e')
        .map((cell) => inner(cell, ctx).trim())
        .join(' & '),
    )
    .join(' \\\\ ');
}

function eqArrRows(el: XmlElement, ctx: Ctx): string[] {
  return childrenNamed(el, 'm:e').map((row) => inner(row, { ...ctx, eqArr: true }).trim());
}

/** `m:d` whose only content is a matrix, a case list or a bar-less fraction has a dedicated form. */
function specialDelimited(el: XmlElement, beg: string, end: string, ctx: Ctx): string | undefined {
  const es = childrenNamed(el, 'm:e');
  if (es.length !== 1) return undefined;
  const only = sole(es[0]);
  if (!only) return undefined;
  const env = MATRIX_ENVIRONMENTS[beg + end];
  if (only.name === 'm:m' && env) return `\\begin{${env}} ${matrixRows(only, ctx)} \\end{${env}}`;
  if (beg === '{' && end === '' && (only.name === 'm:eqArr' || only.name === 'm:m')) {
    const rows = only.name === 'm:m' ? matrixRows(only, ctx) : eqArrRows(only, ctx).join(' \\\\ ');
    return `\\begin{cases} ${rows} \\end{cases}`;
  }
  if (beg === '(' && end === ')' && only.name === 'm:f' && mathVal(prop(only, 'm:type')) === 'noBar') {
    return `\\binom{${arg(only, 'm:num', ctx)}}{${arg(only, 'm:den', ctx)}}`;
  }
  return undefined;
}

function delimited(el: XmlElement, ctx: Ctx): string {
  const beg = charProp(el, 'm:begChr', '(');
  const end = charProp(el, 'm:endChr', ')');
  const special = specialDelimited(el, beg, end, ctx);
  if (special !== undefined) return special;
  const sep = charProp(el, 'm:sepChr', '│');
  const parts = childrenNamed(el, 'm:e').map((e) => inner(e, ctx).trim());
  const stretch =
    onOff(prop(el, 'm:grow'), true) && DELIMITERS[beg] !== undefined && DELIMITERS[end] !== undefined;
  // Stretchy delimiters need \left ... \right; fixed ones are just characters around the content.
  const open = stretch ? `\\left${DELIMITERS[beg]}` : beg && chars(beg);
  const close = stretch ? `\\right${DELIMITERS[end]}` : end && chars(end);
  const middle = stretch && sep && DELIMITERS[sep] !== undefined ? `\\middle${DELIMITERS[sep]}` : chars(sep);
  const out = new LatexBuilder();
  out.add(open);
  parts.forEach((p, i) => {
    if (i > 0) out.add(middle);
    out.add(p);
  });
  out.add(close);
  return out.toString();
}

function fraction(el: XmlElement, ctx: Ctx): string {
  const num = arg(el, 'm:num', ctx);
  const den = arg(el, 'm:den', ctx);
  // Bar, skewed and linear fractions all read as a fraction; only a bar-less one is a stack.
  if (mathVal(prop(el, 'm:type')) === 'noBar') return `\\genfrac{}{}{0pt}{}{${num}}{${den}}`;
  return `\\frac{${num}}{${den}}`;
}

function nary(el: XmlElement, ctx: Ctx): string {
  const chr = charProp(el, 'm:chr', '∫') || '∫';
  let op = NARY[chr] ?? `\\mathop{${chars(chr)}}`;
  if (INTEGRALS.has(op) && mathVal(prop(el, 'm:limLoc')) === 'undOvr') op += '\\limits';
  const sub = onOff(prop(el, 'm:subHide'), false) ? '' : script(el, 'm:sub', '_', ctx);
  const sup = onOff(prop(el, 'm:supHide'), false) ? '' : script(el, 'm:sup', '^', ctx);
  return `${op}${sub}${sup} ${arg(el, 'm:e', ctx)}`;
}

function func(el: XmlElement, ctx: Ctx): string {
  const name = arg(el, 'm:fName', { ...ctx, fname: true });
  const body = arg(el, 'm:e', { ...ctx, fname: false });
  return /^[A-Za-z0-9]/.test(body) ? `${name} ${body}` : name + body;
}

/** `m:limLow` / `m:limUpp`: a limit under or over its base. */
function limit(el: XmlElement, ctx: Ctx, under: boolean): string {
  // A word under a limit is an operator name (lim, max, argmin) even when not typed upright.
  const b = arg(el, 'm:e', { ...ctx, fname: true });
  const lim = arg(el, 'm:lim', { ...ctx, fname: false });
  const brace = under ? '\\underbrace' : '\\overbrace';
  if (LIMIT_OPERATORS.has(b) || b.startsWith(brace)) return `${b}${under ? '_' : '^'}{${lim}}`;
  return `${under ? '\\underset' : '\\overset'}{${lim}}{${b}}`;
}

function accent(el: XmlElement, ctx: Ctx): string {
  const chr = charProp(el, 'm:chr', '\u0302');
  const b = arg(el, 'm:e', ctx);
  const cmd = ACCENTS[chr];
  if (!cmd) return chr ? `\\overset{${chars(chr)}}{${b}}` : b;
  const wide = WIDE_ACCENTS[cmd];
  return `${wide && !isAtom(b) ? wide : cmd}{${b}}`;
}

function groupChr(el: XmlElement, ctx: Ctx): string {
  const chr = charProp(el, 'm:chr', '⏟');
  const top = mathVal(prop(el, 'm:pos')) === 'top';
  const b = arg(el, 'm:e', ctx);
  const cmd = (top ? GROUP_TOP : GROUP_BOTTOM)[chr];
  if (cmd) return `${cmd}{${b}}`;
  return `${top ? '\\overset' : '\\underset'}{${chars(chr)}}{${b}}`;
}

function radical(el: XmlElement, ctx: Ctx): string {
  const deg = onOff(prop(el, 'm:degHide'), false) ? '' : arg(el, 'm:deg', ctx);
  const body = arg(el, 'm:e', ctx);
  return deg ? `\\sqrt[${deg}]{${body}}` : `\\sqrt{${body}}`;
}

function eqArr(el: XmlElement, ctx: Ctx): string {
  const rows = eqArrRows(el, ctx);
  const env = rows.some((r) => /(^|[^\\])&/.test(r)) ? 'aligned' : 'gathered';
  return `\\begin{${env}} ${rows.join(' \\\\ ')} \\end{${env}}`;
}

const HANDLERS: Record<string, Handler> = table<Handler>({
  'm:oMathPara': (el, ctx) =>
    childrenNamed(el, 'm:oMath')
      .map((m) => convert(m, ctx).trim())
      .filter(Boolean)
      .join(' \\\\ '),
  'm:r': (el, ctx) => runToLatex(el, ctx),
  'm:t': (el, ctx) => mathText(textOf(el), false, ctx),
  'w:r': (el) => {
    const text = childrenNamed(el, 'w:t').map(textOf).join('');
    return text.trim() ? `\\text{${escapeText(text)}}` : '';
  },
  'mc:AlternateContent': (el, ctx) => {
    const choice = child(el, 'mc:Choice');
    return choice ? inner(choice, ctx) : '';
  },
  'm:f': fraction,
  'm:sSup': (el, ctx) => base(el, ctx) + script(el, 'm:sup', '^', ctx),
  'm:sSub': (el, ctx) => base(el, ctx) + script(el, 'm:sub', '_', ctx),
  'm:sSubSup': (el, ctx) => base(el, ctx) + script(el, 'm:sub', '_', ctx) + script(el, 'm:sup', '^', ctx),
  'm:sPre': (el, ctx) =>
    `{}${script(el, 'm:sub', '_', ctx)}${script(el, 'm:sup', '^', ctx)}${arg(el, 'm:e', ctx)}`,
  'm:rad': radical,
  'm:nary': nary,
  'm:d': delimited,
  'm:func': func,
  'm:limLow': (el, ctx) => limit(el, ctx, true),
  'm:limUpp': (el, ctx) => limit(el, ctx, false),
  'm:acc': accent,
  'm:bar': (el, ctx) =>
    `${mathVal(prop(el, 'm:pos')) === 'top' ? '\\overline' : '\\underline'}{${arg(el, 'm:e', ctx)}}`,
  'm:groupChr': groupChr,
  'm:borderBox': (el, ctx) => `\\boxed{${arg(el, 'm:e', ctx)}}`,
  'm:phant': (el, ctx) =>
    onOff(prop(el, 'm:show'), true) ? arg(el, 'm:e', ctx) : `\\phantom{${arg(el, 'm:e', ctx)}}`,
  'm:m': (el, ctx) => `\\begin{matrix} ${matrixRows(el, ctx)} \\end{matrix}`,
  'm:eqArr': eqArr,
});
