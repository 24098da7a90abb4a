import { table } from './latex-text.ts';
import { NARY } from './operators.ts';

/**
 * Unicode characters of Office Math text and their LaTeX spelling. Characters not listed
 * here pass through unchanged (letters, digits, most punctuation, and anything KaTeX or
 * MathJax already renders from Unicode).
 */
const SYMBOLS: Record<string, string> = table({
  // Greek: the letters that look like Latin ones have no command of their own.
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  ε: '\\varepsilon',
  ϵ: '\\epsilon',
  ζ: '\\zeta',
  η: '\\eta',
  θ: '\\theta',
  ϑ: '\\vartheta',
  ι: '\\iota',
  κ: '\\kappa',
  ϰ: '\\varkappa',
  λ: '\\lambda',
  μ: '\\mu',
  µ: '\\mu',
  ν: '\\nu',
  ξ: '\\xi',
  ο: 'o',
  π: '\\pi',
  ϖ: '\\varpi',
  ρ: '\\rho',
  ϱ: '\\varrho',
  σ: '\\sigma',
  ς: '\\varsigma',
  τ: '\\tau',
  υ: '\\upsilon',
  φ: '\\varphi',
  ϕ: '\\phi',
  χ: '\\chi',
  ψ: '\\psi',
  ω: '\\omega',
  Α: 'A',
  Β: 'B',
  Γ: '\\Gamma',
  Δ: '\\Delta',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Θ: '\\Theta',
  ϴ: '\\Theta',
  Ι: 'I',
  Κ: 'K',
  Λ: '\\Lambda',
  Μ: 'M',
  Ν: 'N',
  Ξ: '\\Xi',
  Ο: 'O',
  Π: '\\Pi',
  Ρ: 'P',
  Σ: '\\Sigma',
  Τ: 'T',
  Υ: '\\Upsilon',
  ϒ: '\\Upsilon',
  Φ: '\\Phi',
  Χ: 'X',
  Ψ: '\\Psi',
  Ω: '\\Omega',
  '\u2126': '\\Omega',
  ϝ: '\\digamma',
  // Binary operators.
  '±': '\\pm',
  '∓': '\\mp',
  '×': '\\times',
  '⨯': '\\times',
  '÷': '\\div',
  '·': '\\cdot',
  '⋅': '\\cdot',
  '∘': '\\circ',
  '∙': '\\bullet',
  '•': '\\bullet',
  '⊕': '\\oplus',
  '⊖': '\\ominus',
  '⊗': '\\otimes',
  '⊘': '\\oslash',
  '⊙': '\\odot',
  '∗': '\\ast',
  '⋆': '\\star',
  '†': '\\dagger',
  '‡': '\\ddagger',
  '∧': '\\wedge',
  '∨': '\\vee',
  '∩': '\\cap',
  '∪': '\\cup',
  '⊎': '\\uplus',
  '⊓': '\\sqcap',
  '⊔': '\\sqcup',
  '∖': '\\setminus',
  '≀': '\\wr',
  '⋄': '\\diamond',
  '∔': '\\dotplus',
  '⋉': '\\ltimes',
  '⋊': '\\rtimes',
  '⊺': '\\intercal',
  '−': '-',
  '‐': '-',
  '–': '-',
  '∕': '/',
  '⁄': '/',
  // Relations.
  '≤': '\\leq',
  '≥': '\\geq',
  '⩽': '\\leqslant',
  '⩾': '\\geqslant',
  '≦': '\\leqq',
  '≧': '\\geqq',
  '≠': '\\neq',
  '≈': '\\approx',
  '≅': '\\cong',
  '≡': '\\equiv',
  '≢': '\\not\\equiv',
  '∼': '\\sim',
  '≃': '\\simeq',
  '≍': '\\asymp',
  '∝': '\\propto',
  '≪': '\\ll',
  '≫': '\\gg',
  '⋘': '\\lll',
  '⋙': '\\ggg',
  '≲': '\\lesssim',
  '≳': '\\gtrsim',
  '≮': '\\nless',
  '≯': '\\ngtr',
  '≰': '\\nleq',
  '≱': '\\ngeq',
  '≺': '\\prec',
  '≻': '\\succ',
  '⪯': '\\preceq',
  '⪰': '\\succeq',
  '⊂': '\\subset',
  '⊃': '\\supset',
  '⊆': '\\subseteq',
  '⊇': '\\supseteq',
  '⊄': '\\not\\subset',
  '⊅': '\\not\\supset',
  '⊈': '\\nsubseteq',
  '⊉': '\\nsupseteq',
  '⊊': '\\subsetneq',
  '⊋': '\\supsetneq',
  '⊏': '\\sqsubset',
  '⊐': '\\sqsupset',
  '⊑': '\\sqsubseteq',
  '⊒': '\\sqsupseteq',
  '∈': '\\in',
  '∉': '\\notin',
  '∋': '\\ni',
  '∌': '\\not\\ni',
  '⊢': '\\vdash',
  '⊣': '\\dashv',
  '⊨': '\\models',
  '⊥': '\\perp',
  '∥': '\\parallel',
  '∦': '\\nparallel',
  '∣': '\\mid',
  '│': '|',
  '∤': '\\nmid',
  '≐': '\\doteq',
  '≔': '\\coloneqq',
  '≜': '\\triangleq',
  '≝': '\\overset{\\text{def}}{=}',
  '∴': '\\therefore',
  '∵': '\\because',
  '∶': ':',
  '∷': '::',
  // Arrows.
  '→': '\\rightarrow',
  '←': '\\leftarrow',
  '↔': '\\leftrightarrow',
  '⇒': '\\Rightarrow',
  '⇐': '\\Leftarrow',
  '⇔': '\\Leftrightarrow',
  '↑': '\\uparrow',
  '↓': '\\downarrow',
  '↕': '\\updownarrow',
  '⇑': '\\Uparrow',
  '⇓': '\\Downarrow',
  '⇕': '\\Updownarrow',
  '↦': '\\mapsto',
  '⟶': '\\longrightarrow',
  '⟵': '\\longleftarrow',
  '⟷': '\\longleftrightarrow',
  '⟹': '\\Longrightarrow',
  '⟸': '\\Longleftarrow',
  '⟺': '\\Longleftrightarrow',
  '⟼': '\\longmapsto',
  '↗': '\\nearrow',
  '↘': '\\searrow',
  '↙': '\\swarrow',
  '↖': '\\nwarrow',
  '↪': '\\hookrightarrow',
  '↩': '\\hookleftarrow',
  '⇀': '\\rightharpoonup',
  '↼': '\\leftharpoonup',
  '⇁': '\\rightharpoondown',
  '↽': '\\leftharpoondown',
  '⇌': '\\rightleftharpoons',
  '⇋': '\\leftrightharpoons',
  '⇄': '\\rightleftarrows',
  '↛': '\\nrightarrow',
  '↚': '\\nleftarrow',
  '⇏': '\\nRightarrow',
  '⇍': '\\nLeftarrow',
  '↠': '\\twoheadrightarrow',
  '⇝': '\\rightsquigarrow',
  // Large operators written as plain characters: the same commands as m:nary's.
  ...NARY,
  // Miscellaneous symbols.
  '∞': '\\infty',
  '∂': '\\partial',
  '∇': '\\nabla',
  '∀': '\\forall',
  '∃': '\\exists',
  '∄': '\\nexists',
  '∅': '\\emptyset',
  '∁': '\\complement',
  '¬': '\\neg',
  ℵ: '\\aleph',
  ℏ: '\\hbar',
  ℓ: '\\ell',
  ℘: '\\wp',
  ℜ: '\\Re',
  ℑ: '\\Im',
  '∠': '\\angle',
  '∡': '\\measuredangle',
  '°': '{}^{\\circ}',
  '℃': '{}^{\\circ}\\mathrm{C}',
  '′': "'",
  '″': "''",
  '‴': "'''",
  '…': '\\ldots',
  '⋯': '\\cdots',
  '⋮': '\\vdots',
  '⋱': '\\ddots',
  '△': '\\triangle',
  '□': '\\square',
  '◊': '\\lozenge',
  '♠': '\\spadesuit',
  '♣': '\\clubsuit',
  '♥': '\\heartsuit',
  '♦': '\\diamondsuit',
  '√': '\\surd',
  '⊤': '\\top',
  '∎': '\\blacksquare',
  '⟨': '\\langle',
  '⟩': '\\rangle',
  '〈': '\\langle',
  '〉': '\\rangle',
  '⌊': '\\lfloor',
  '⌋': '\\rfloor',
  '⌈': '\\lceil',
  '⌉': '\\rceil',
  '‖': '\\|',
  '§': '\\S',
  '¶': '\\P',
  ℎ: 'h',
  ℯ: 'e',
  ℊ: 'g',
  ℴ: 'o',
  ı: '\\imath',
  ȷ: '\\jmath',
  // Spaces and invisible operators: LaTeX math ignores plain spaces, so widths need commands.
  '\u2003': '\\quad ',
  '\u2002': '\\enspace ',
  '\u2004': '\\;',
  '\u2005': '\\:',
  '\u205f': '\\:',
  '\u2009': '\\,',
  '\u200a': '\\,',
  '\u00a0': ' ',
  '\u200b': '',
  '\u2061': '',
  '\u2062': '',
  '\u2063': '',
  '\u2064': '',
  // LaTeX's own special characters, escaped for math mode.
  '#': '\\#',
  $: '\\$',
  '%': '\\%',
  '&': '\\&',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\sim',
  '^': '\\hat{}',
  '\\': '\\backslash',
});

/** Letter-like symbols that stand for a styled letter. */
const LETTERLIKE: Record<string, [style: string, letter: string]> = table({
  ℝ: ['\\mathbb', 'R'],
  ℕ: ['\\mathbb', 'N'],
  ℤ: ['\\mathbb', 'Z'],
  ℚ: ['\\mathbb', 'Q'],
  ℂ: ['\\mathbb', 'C'],
  ℙ: ['\\mathbb', 'P'],
  ℍ: ['\\mathbb', 'H'],
  ℒ: ['\\mathcal', 'L'],
  ℋ: ['\\mathcal', 'H'],
  ℐ: ['\\mathcal', 'I'],
  ℛ: ['\\mathcal', 'R'],
  ℬ: ['\\mathcal', 'B'],
  ℰ: ['\\mathcal', 'E'],
  ℱ: ['\\mathcal', 'F'],
  ℳ: ['\\mathcal', 'M'],
  ℌ: ['\\mathfrak', 'H'],
  ℨ: ['\\mathfrak', 'Z'],
  ℭ: ['\\mathfrak', 'C'],
});

/**
 * The 13 Latin alphabets of the Mathematical Alphanumeric Symbols block (U+1D400, 52 letters
 * each), in block order, with the LaTeX style that keeps their meaning. Italic is math's
 * default, so it (and the other merely typographic styles) becomes the plain letter.
 */
const LATIN_STYLES = [
  '\\mathbf', // bold
  '', // italic
  '\\boldsymbol', // bold italic
  '\\mathcal', // script
  '\\mathcal', // bold script
  '\\mathfrak', // fraktur
  '\\mathbb', // double-struck
  '\\mathfrak', // bold fraktur
  '\\mathsf', // sans-serif
  '\\mathsf', // sans-serif bold
  '\\mathsf', // sans-serif italic
  '\\mathsf', // sans-serif bold italic
  '\\mathtt', // monospace
];
/** Styles whose lower-case letters the common renderers lack. */
const UPPER_ONLY = new Set(['\\mathcal', '\\mathbb']);
/** The Greek alphabets (U+1D6A8, 58 letters each) are bold, italic, bold italic, sans bold ×2. */
const GREEK_STYLES = ['\\boldsymbol', '', '\\boldsymbol', '\\boldsymbol', '\\boldsymbol'];
const GREEK_TAIL = ['∂', 'ϵ', 'ϑ', 'ϰ', 'ϕ', 'ϱ', 'ϖ'];

/** One character of math text: its LaTeX and, for a styled letter, the style command. */
export interface MathChar {
  latex: string;
  style: string;
}

function greekLetter(index: number): string {
  if (index < 25) return index === 17 ? 'ϴ' : String.fromCodePoint(0x391 + index);
  if (index === 25) return '∇';
  if (index < 51) return String.fromCodePoint(0x3b1 + index - 26);
  return GREEK_TAIL[index - 51]!;
}

/** Undoes the Mathematical Alphanumeric Symbols block into a base character and a style. */
function alphanumeric(cp: number): MathChar | undefined {
  if (cp >= 0x1d400 && cp < 0x1d400 + 13 * 52) {
    const style = LATIN_STYLES[Math.floor((cp - 0x1d400) / 52)]!;
    const i = (cp - 0x1d400) % 52;
    const letter = String.fromCharCode(i < 26 ? 65 + i : 97 + i - 26);
    return { latex: letter, style: i >= 26 && UPPER_ONLY.has(style) ? '' : style };
  }
  if (cp === 0x1d6a4) return { latex: '\\imath', style: '' };
  if (cp === 0x1d6a5) return { latex: '\\jmath', style: '' };
  if (cp >= 0x1d6a8 && cp < 0x1d6a8 + 5 * 58) {
    const style = GREEK_STYLES[Math.floor((cp - 0x1d6a8) / 58)]!;
    const base = greekLetter((cp - 0x1d6a8) % 58);
    return { latex: SYMBOLS[base] ?? base, style };
  }
  if (cp >= 0x1d7ce && cp <= 0x1d7ff) {
    return { latex: String.fromCharCode(48 + ((cp - 0x1d7ce) % 10)), style: '' };
  }
  return undefined;
}

/** The LaTeX for one character (a full code point) of math-mode text. */
export function mathChar(ch: string): MathChar {
  const symbol = SYMBOLS[ch];
  if (symbol !== undefined) return { latex: symbol, style: '' };
  const letterlike = LETTERLIKE[ch];
  if (letterlike) return { latex: letterlike[1], style: letterlike[0] };
  const cp = ch.codePointAt(0)!;
  if (cp >= 0x1d400 && cp <= 0x1d7ff) return alphanumeric(cp) ?? { latex: ch, style: '' };
  return { latex: ch, style: '' };
}

const TEXT_ESCAPES: Record<string, string> = table({
  '#': '\\#',
  $: '\\$',
  '%': '\\%',
  '&': '\\&',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '\\': '\\textbackslash{}',
});

/** Escapes text for a `\text{...}` group. */
export function escapeText(text: string): string {
  return text.replace(/[#$%&_{}~^\\]/g, (c) => TEXT_ESCAPES[c]!);
}
