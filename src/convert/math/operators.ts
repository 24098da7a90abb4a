/**
 * The characters Office Math draws as structure (n-ary operators, delimiters, accents, group
 * characters) and the LaTeX commands that draw the same structure, plus the function names
 * LaTeX typesets upright by itself. Shared with the MathML converter (mathml-to-latex.ts).
 */

import { table } from './latex-text.ts';

/** n-ary operators (`m:nary` `m:chr`); integrals take `\limits` when Word puts limits above and below. */
export const NARY: Record<string, string> = table({
  '∑': '\\sum',
  '⅀': '\\sum',
  '∏': '\\prod',
  '∐': '\\coprod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '⨌': '\\iiiint',
  '∮': '\\oint',
  '∯': '\\oiint',
  '∰': '\\oiiint',
  '∱': '\\int',
  '∲': '\\oint',
  '∳': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
  '⋁': '\\bigvee',
  '⋀': '\\bigwedge',
  '⨁': '\\bigoplus',
  '⨂': '\\bigotimes',
  '⨀': '\\bigodot',
  '⨄': '\\biguplus',
  '⨆': '\\bigsqcup',
  '⨅': '\\bigsqcap',
});
export const INTEGRALS = new Set(['\\int', '\\iint', '\\iiint', '\\iiiint', '\\oint', '\\oiint', '\\oiiint']);

/** Delimiters `\left` / `\right` / `\middle` can stretch; '' is the invisible one. */
export const DELIMITERS: Record<string, string> = table({
  '': '.',
  '(': '(',
  ')': ')',
  '[': '[',
  ']': ']',
  '{': '\\{',
  '}': '\\}',
  '⟨': '\\langle',
  '⟩': '\\rangle',
  '〈': '\\langle',
  '〉': '\\rangle',
  '|': '|',
  '│': '|',
  '∣': '|',
  '‖': '\\|',
  '∥': '\\|',
  '⌊': '\\lfloor',
  '⌋': '\\rfloor',
  '⌈': '\\lceil',
  '⌉': '\\rceil',
  '⟦': '\\llbracket',
  '⟧': '\\rrbracket',
  '/': '/',
  '\\': '\\backslash',
  '↑': '\\uparrow',
  '↓': '\\downarrow',
  '↕': '\\updownarrow',
});

/** `m:d` delimiter pairs that have a matrix environment of their own. */
export const MATRIX_ENVIRONMENTS: Record<string, string> = table({
  '()': 'pmatrix',
  '[]': 'bmatrix',
  '{}': 'Bmatrix',
  '||': 'vmatrix',
  '││': 'vmatrix',
  '‖‖': 'Vmatrix',
});

/** Accent characters (`m:acc` `m:chr`, combining or spacing forms). */
export const ACCENTS: Record<string, string> = table({
  '\u0302': '\\hat',
  '^': '\\hat',
  ˆ: '\\hat',
  '\u0303': '\\tilde',
  '~': '\\tilde',
  '˜': '\\tilde',
  '\u0304': '\\bar',
  '¯': '\\bar',
  '\u0305': '\\overline',
  '‾': '\\overline',
  '\u0307': '\\dot',
  '˙': '\\dot',
  '\u0308': '\\ddot',
  '¨': '\\ddot',
  '\u20db': '\\dddot',
  '\u20d7': '\\vec',
  '\u20d1': '\\vec',
  '\u20d6': '\\overleftarrow',
  '\u20e1': '\\overleftrightarrow',
  '\u030c': '\\check',
  ˇ: '\\check',
  '\u0306': '\\breve',
  '˘': '\\breve',
  '\u0300': '\\grave',
  '`': '\\grave',
  '\u0301': '\\acute',
  '´': '\\acute',
  '\u030a': '\\mathring',
  '˚': '\\mathring',
});
/** Accents with a wide form for a base of more than one symbol. */
export const WIDE_ACCENTS: Record<string, string> = table({
  '\\hat': '\\widehat',
  '\\tilde': '\\widetilde',
  '\\vec': '\\overrightarrow',
  '\\bar': '\\overline',
});

/** Group characters (`m:groupChr`), by position: the brace or arrow drawn over or under. */
export const GROUP_TOP: Record<string, string> = table({
  '⏞': '\\overbrace',
  '⏟': '\\overbrace',
  '⎴': '\\overbrace',
  '⏜': '\\overbrace',
  '→': '\\overrightarrow',
  '⟶': '\\overrightarrow',
  '←': '\\overleftarrow',
  '⟵': '\\overleftarrow',
  '↔': '\\overleftrightarrow',
  '¯': '\\overline',
  '‾': '\\overline',
});
export const GROUP_BOTTOM: Record<string, string> = table({
  '⏟': '\\underbrace',
  '⏞': '\\underbrace',
  '⎵': '\\underbrace',
  '⏝': '\\underbrace',
  '→': '\\underrightarrow',
  '⟶': '\\underrightarrow',
  '←': '\\underleftarrow',
  '⟵': '\\underleftarrow',
  '↔': '\\underleftrightarrow',
  _: '\\underline',
});

/** Function names LaTeX has a command for; other names become `\operatorname{...}`. */
export const FUNCTIONS = new Set([
  'sin',
  'cos',
  'tan',
  'cot',
  'sec',
  'csc',
  'arcsin',
  'arccos',
  'arctan',
  'sinh',
  'cosh',
  'tanh',
  'coth',
  'log',
  'ln',
  'lg',
  'exp',
  'lim',
  'liminf',
  'limsup',
  'max',
  'min',
  'sup',
  'inf',
  'det',
  'dim',
  'ker',
  'deg',
  'gcd',
  'hom',
  'arg',
  'Pr',
]);

/** Operators whose limits LaTeX itself places under and over, so `m:limLow` becomes a subscript. */
export const LIMIT_OPERATORS = new Set([
  '\\lim',
  '\\liminf',
  '\\limsup',
  '\\max',
  '\\min',
  '\\sup',
  '\\inf',
  '\\det',
  '\\gcd',
  '\\Pr',
]);
