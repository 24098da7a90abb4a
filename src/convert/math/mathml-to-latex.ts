import type { Element, ElementContent } from 'hast';
import { cat, isAtom, tidy } from './latex-text.ts';
import { ACCENTS, DELIMITERS, FUNCTIONS, GROUP_BOTTOM, GROUP_TOP, NARY } from './operators.ts';
import { escapeText, mathChar } from './symbols.ts';

/**
 * Presentation MathML (as parse5 leaves it in a content document) → LaTeX, for the model's
 * math convention. A TeX annotation or `alttext` wins when the document carries one. Nesting
 * is bounded by the HTML depth limit `preparePage` applies, so recursion is safe.
 */
export function mathmlToLatex(math: Element): string {
  const alt = prop(math, 'alttext');
  const annotated = texAnnotation(math);
  return tidy(annotated ?? (alt || convert(math)));
}

/** `m:mi` and `mi` alike: EPUBs sometimes prefix MathML, which an HTML parser keeps in the name. */
export function localName(el: Element): string {
  const name = el.tagName;
  const colon = name.lastIndexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

function prop(el: Element, name: string): string {
  const v = el.properties[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : '';
}

function elements(el: Element): Element[] {
  return el.children.filter((c): c is Element => c.type === 'element');
}

function text(el: Element | ElementContent): string {
  if (el.type === 'text') return el.value;
  if (el.type !== 'element') return '';
  let out = '';
  for (const c of el.children) out += text(c);
  return out;
}

function texAnnotation(el: Element): string | undefined {
  for (const c of elements(el)) {
    const name = localName(c);
    if (name === 'semantics') return texAnnotation(c);
    if (name === 'annotation' && /tex/i.test(prop(c, 'encoding'))) return text(c);
  }
  return undefined;
}

/** Invisible operators (function application, invisible times, separator, plus) draw nothing. */
const INVISIBLE = /[\u2061-\u2064\u200b]/g;

function symbols(value: string): string {
  let out = '';
  for (const ch of value.replace(INVISIBLE, '').trim()) {
    const { latex, style } = mathChar(ch);
    out = cat(out, style ? `${style}{${latex}}` : latex);
  }
  return out;
}

const VARIANTS: Record<string, string> = {
  bold: '\\mathbf',
  'double-struck': '\\mathbb',
  script: '\\mathcal',
  'bold-script': '\\mathcal',
  fraktur: '\\mathfrak',
  'bold-fraktur': '\\mathfrak',
  'sans-serif': '\\mathsf',
  monospace: '\\mathtt',
};

function identifier(el: Element): string {
  const value = text(el).replace(INVISIBLE, '').trim();
  if (value === '') return '';
  const variant = VARIANTS[prop(el, 'mathvariant')];
  if ([...value].length > 1 && /^[A-Za-z]+$/.test(value)) {
    return FUNCTIONS.has(value) ? `\\${value}` : `\\operatorname{${value}}`;
  }
  const latex = symbols(value);
  return variant ? `${variant}{${latex}}` : latex;
}

function group(latex: string): string {
  return isAtom(latex) ? latex : `{${latex}}`;
}

function row(els: Element[]): string {
  let out = '';
  for (const el of els) out = cat(out, convert(el));
  return out;
}

/** The single operator character of an `mo`, or undefined when the element is something else. */
function operatorChar(el: Element | undefined): string | undefined {
  if (!el) return undefined;
  const name = localName(el);
  if (name === 'mrow' && elements(el).length === 1) return operatorChar(elements(el)[0]);
  return name === 'mo' || name === 'mi' ? text(el).trim() : undefined;
}

function isLargeOperator(el: Element | undefined): boolean {
  const ch = operatorChar(el);
  return ch !== undefined && (NARY[ch] !== undefined || FUNCTIONS.has(ch));
}

function under(base: Element, script: Element): string {
  const b = convert(base);
  if (isLargeOperator(base)) return `${b}_${group(convert(script))}`;
  const command = GROUP_BOTTOM[operatorChar(script) ?? ''];
  if (command) return `${command}{${b}}`;
  return `\\underset{${convert(script)}}{${b}}`;
}

function over(base: Element, script: Element): string {
  const b = convert(base);
  if (isLargeOperator(base)) return `${b}^${group(convert(script))}`;
  const ch = operatorChar(script) ?? '';
  const command = GROUP_TOP[ch] ?? ACCENTS[ch];
  if (command) return `${command}{${b}}`;
  return `\\overset{${convert(script)}}{${b}}`;
}

function delimiter(ch: string): string {
  return ch === '' ? '' : (DELIMITERS[ch] ?? symbols(ch));
}

function fenced(el: Element): string {
  const open = el.properties.open === undefined ? '(' : prop(el, 'open');
  const close = el.properties.close === undefined ? ')' : prop(el, 'close');
  const separators = el.properties.separators === undefined ? ',' : prop(el, 'separators').replace(/\s/g, '');
  const parts = elements(el).map(convert);
  let body = '';
  parts.forEach((p, i) => {
    body += i === 0 ? p : `${separators[Math.min(i - 1, separators.length - 1)] ?? ''}${p}`;
  });
  // Plain delimiters, as most sources would write them; `\\left` is for stretching, which
  // the MathML reader (not the markup) decided.
  return `${delimiter(open)}${body}${delimiter(close)}`;
}

function table(el: Element): string {
  const rows = elements(el)
    .filter((r) => localName(r) === 'mtr' || localName(r) === 'mlabeledtr')
    .map((r) => {
      const cells = elements(r).filter((c) => localName(c) === 'mtd');
      // A labelled row's first cell is its equation number.
      return (localName(r) === 'mlabeledtr' ? cells.slice(1) : cells)
        .map((c) => row(elements(c)))
        .join(' & ');
    });
  return `\\begin{matrix}${rows.join(' \\\\ ')}\\end{matrix}`;
}

function space(el: Element): string {
  const width = prop(el, 'width').trim();
  const em = /^([\d.]+)em$/.exec(width);
  if (em && Number(em[1]) >= 1) return '\\quad';
  if (/thin|^0?\.1/.test(width)) return '\\,';
  return width ? '\\;' : '';
}

function convert(el: Element): string {
  const kids = elements(el);
  const [a, b, c] = kids;
  switch (localName(el)) {
    case 'mi':
      return identifier(el);
    case 'mn':
      return text(el).trim();
    case 'mo': {
      const value = text(el).replace(INVISIBLE, '').trim();
      return NARY[value] ?? (/^[A-Za-z]{2,}$/.test(value) ? identifier(el) : symbols(value));
    }
    case 'mtext':
    case 'ms': {
      const value = text(el).replace(/\s+/g, ' ').trim();
      return value ? `\\text{${escapeText(value)}}` : '';
    }
    case 'mspace':
      return space(el);
    case 'msup':
      return a && b ? `${group(convert(a))}^${group(convert(b))}` : row(kids);
    case 'msub':
      return a && b ? `${group(convert(a))}_${group(convert(b))}` : row(kids);
    case 'msubsup':
      return a && b && c ? `${group(convert(a))}_${group(convert(b))}^${group(convert(c))}` : row(kids);
    case 'munder':
      return a && b ? under(a, b) : row(kids);
    case 'mover':
      return a && b ? over(a, b) : row(kids);
    case 'munderover':
      if (!a || !b || !c) return row(kids);
      if (isLargeOperator(a)) return `${convert(a)}_${group(convert(b))}^${group(convert(c))}`;
      return `\\overset{${convert(c)}}{\\underset{${convert(b)}}{${convert(a)}}}`;
    case 'mfrac':
      return a && b ? `\\frac{${convert(a)}}{${convert(b)}}` : row(kids);
    case 'msqrt':
      return `\\sqrt{${row(kids)}}`;
    case 'mroot':
      return a && b ? `\\sqrt[${convert(b)}]{${convert(a)}}` : row(kids);
    case 'mfenced':
      return fenced(el);
    case 'mtable':
      return table(el);
    case 'semantics':
    case 'maction':
      return a ? convert(a) : '';
    case 'annotation':
    case 'annotation-xml':
    case 'none':
    case 'mprescripts':
      return '';
    case 'mmultiscripts': {
      // Only the post-scripts of the first pair: prescripts are rare outside chemistry.
      if (!a) return '';
      const sub = b && localName(b) !== 'mprescripts' ? convert(b) : '';
      const sup = c ? convert(c) : '';
      return `${group(convert(a))}${sub ? `_${group(sub)}` : ''}${sup ? `^${group(sup)}` : ''}`;
    }
    case 'math':
    case 'mrow':
    case 'mstyle':
    case 'mpadded':
    case 'mphantom':
    case 'menclose':
    case 'merror':
      return row(kids);
    default:
      // Elementary math (mlongdiv, mstack) and unknown elements: their parts, apart.
      return kids.map(convert).filter(Boolean).join(' ');
  }
}
