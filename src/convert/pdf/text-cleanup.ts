/**
 * Presentation forms a PDF's fonts map glyphs to: Latin ligatures (U+FB00-FB06), Hebrew and
 * Arabic contextual forms (U+FB1D-FDFF, U+FE70-FEFF), plus the odd spaces and compatibility
 * letters pdf.js itself would normalize. NFKC turns them back into plain letters; it is
 * applied to these characters only, so full-width CJK punctuation stays as it is.
 */
const PRESENTATION_FORMS =
  /[\u00a0\u00b5\u037e\u0eb3\u2000-\u200a\u202f\u2126\ufb00-\ufb06\ufb1d-\ufdff\ufe70-\ufefe]+/g;

export function cleanRunText(text: string): string {
  let out = text.replace(PRESENTATION_FORMS, (m) => m.normalize('NFKC'));
  // Soft hyphens and zero-width marks carry nothing the reader sees.
  out = out.replace(/\u00ad|\u200b|\u200c|\u200d|\u2060|\ufeff/g, '');
  // Controls come from broken encodings; a tab is a space.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
  return out.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

/** Characters that say a font's glyphs map to nothing readable. */
function isGarbage(code: number): boolean {
  return (
    code === 0xfffd || (code >= 0xe000 && code <= 0xf8ff) || code < 0x20 || (code >= 0x7f && code < 0xa0)
  );
}

/** Share of unreadable characters (replacement, private use, controls) in a page's text. */
export function garbageShare(texts: Iterable<string>): number {
  let total = 0;
  let bad = 0;
  for (const text of texts)
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 0x20) continue;
      total++;
      if (isGarbage(code)) bad++;
    }
  return total === 0 ? 0 : bad / total;
}

/**
 * Han, kana and CJK punctuation: scripts written without spaces between words. (Korean
 * hangul puts spaces between words, so it joins like Latin text.)
 */
export const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/** Hebrew and Arabic letters. */
export const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;
