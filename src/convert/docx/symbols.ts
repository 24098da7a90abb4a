/**
 * Symbol-font characters (w:sym, bullets) are stored as private-use code points U+F020-U+F0FF
 * (or plain bytes) whose glyph depends on the font. These tables give the Unicode character
 * the glyph shows, for the fonts documents use for Greek, math and check boxes.
 */

/** Adobe Symbol encoding, 0x20-0xFE (undefined slots are empty). */
const SYMBOL =
  ' !∀#∃%&∋()∗+,−./0123456789:;<=>?≅ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ[∴]⊥_‾αβχδεφγηιϕκλμνοπθρστυϖωξψζ{|}∼' +
  '\u0000'.repeat(0x21) +
  '€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑⎛⎜⎝⎡⎢⎣⎧⎨⎩⎪\u0000〉∫⌠⎮⌡⎞⎟⎠⎤⎥⎦⎫⎬⎭';

/** The Wingdings glyphs that carry meaning in text: check marks, boxes, bullets, arrows. */
const WINGDINGS: Record<number, string> = {
  108: '●',
  110: '■',
  111: '☐',
  113: '❑',
  117: '◆',
  118: '❖',
  159: '•',
  167: '▪',
  168: '☐',
  216: '➢',
  224: '→',
  232: '➔',
  239: '⇦',
  240: '⇨',
  251: '✗',
  252: '✓',
  253: '☒',
  254: '☑',
};

/** Wingdings 2: the check boxes and marks forms use. */
const WINGDINGS_2: Record<number, string> = {
  79: '✗',
  80: '✓',
  82: '☑',
  83: '☒',
  84: '☒',
  151: '•',
  163: '☐',
};

/** The character a symbol-font code shows, or '' when it has no sensible text form. */
export function symbolChar(font: string | undefined, code: number): string {
  const byte = code >= 0xf000 && code <= 0xf0ff ? code - 0xf000 : code;
  const name = (font ?? '').toLowerCase();
  if (byte <= 0xff) {
    if (name === 'symbol') {
      const ch = byte >= 0x20 ? SYMBOL[byte - 0x20] : undefined;
      return ch && ch !== '\u0000' ? ch : '';
    }
    if (name === 'wingdings 2') return WINGDINGS_2[byte] ?? '';
    if (name === 'wingdings') return WINGDINGS[byte] ?? '';
    // Other pictograph fonts (Wingdings 3, Webdings …): their glyphs have no text form here.
    if (name.startsWith('wingdings') || name === 'webdings') return '';
  }
  if (code >= 0xe000 && code <= 0xf8ff) return '';
  return String.fromCodePoint(code);
}

/** Replaces private-use symbol-font characters in text typed in that font. */
export function mapSymbolText(font: string | undefined, text: string): string {
  if (!/[\uf020-\uf0ff]/.test(text)) return text;
  return text.replace(/[\uf020-\uf0ff]/g, (ch) => symbolChar(font, ch.codePointAt(0)!));
}

/**
 * Glyphs of an unticked and a ticked check box, as typed or as list bullets. A bare check
 * mark is not one: check-mark bullets are decoration far more often than a to-do state.
 */
export const UNCHECKED_BOX = new Set(['☐', '□', '❑']);
export const CHECKED_BOX = new Set(['☒', '☑']);
