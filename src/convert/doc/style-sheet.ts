import type { ByteReader } from './byte-reader.ts';
import { forEachSprm, op8, SPRM } from './sprm.ts';

/** One style of the style sheet ([MS-DOC] 2.9.271 STSH, 2.9.260 STD). */
export interface Style {
  name: string;
  /** Built-in style id: 1..9 are Heading 1..9 under any localized name, 62 is Title. */
  sti: number;
  istdBase: number;
  /** Outline level 0..8 from the style's own paragraph properties, when it sets one. */
  outlineLevel: number | undefined;
}

const utf16 = new TextDecoder('utf-16le');
const STI_TITLE = 62;
const ISTD_NIL = 0xfff;
/**
 * "Heading N" in the languages whose names writers other than Word (LibreOffice) store for
 * user-defined heading styles, when the built-in id and outline level are missing.
 */
const HEADING_NAME =
  /^(?:heading|überschrift|titre|título|titolo|kop|rubrik|overskrift|otsikko|nagłówek|nadpis|заголовок|επικεφαλίδα|見出し|标题|제목)\s*([1-9])$/iu;
/** Outline level 9 means "body text". */
const BODY_LEVEL = 9;

function readStd(r: ByteReader, at: number, size: number, baseSize: number): Style {
  const sti = r.u16(at) & 0x0fff;
  const stk = r.u16(at + 2) & 0x000f;
  const istdBase = r.u16(at + 2) >> 4;
  let name = '';
  let outlineLevel: number | undefined;
  const nameAt = at + baseSize;
  if (baseSize + 2 <= size) {
    const cch = Math.min(r.u16(nameAt), (size - baseSize - 2) >> 1);
    name = utf16.decode(r.slice(nameAt + 2, cch * 2));
    // UPXs follow the name's terminating NUL, each starting on an even offset in the STD.
    let upx = baseSize + 2 + cch * 2 + 2;
    upx += upx & 1;
    if (stk === 1 && upx + 4 <= size) {
      const cbUpx = r.u16(at + upx);
      if (cbUpx >= 2 && upx + 2 + cbUpx <= size) {
        const grpprl = r.slice(at + upx + 4, cbUpx - 2);
        forEachSprm(grpprl, 0, (sprm, o) => {
          if (sprm === SPRM.pOutLvl) outlineLevel = op8(grpprl, o);
        });
      }
    }
  }
  return { name, sti, istdBase, outlineLevel };
}

/** The style sheet, indexed by istd; damaged entries are left out. */
export function readStyleSheet(table: ByteReader, fc: number, lcb: number): (Style | undefined)[] {
  const styles: (Style | undefined)[] = [];
  if (lcb < 4 || !table.has(fc, lcb)) return styles;
  const r = table.sub(fc, lcb);
  const cbStshi = r.u16(0);
  if (cbStshi < 4) return styles;
  const cstd = r.u16(2);
  const baseSize = r.u16(4);
  let at = 2 + cbStshi;
  for (let i = 0; i < cstd && at + 2 <= r.length; i++) {
    const size = r.u16(at);
    if (size > 0 && r.has(at + 2, size)) {
      try {
        styles[i] = readStd(r, at + 2, size, baseSize);
      } catch {
        // A damaged style reads as "Normal".
      }
    }
    at += 2 + size;
  }
  return styles;
}

/** The heading level (1..9) a paragraph style gives, following its base styles. */
export function headingLevel(styles: readonly (Style | undefined)[], istd: number): number | undefined {
  let current = istd;
  // Base chains are short; a cycle in a damaged file stops at the bound.
  for (let depth = 0; depth < 16 && current !== ISTD_NIL; depth++) {
    const style = styles[current];
    if (!style) return undefined;
    if (style.sti >= 1 && style.sti <= 9) return style.sti;
    if (style.sti === STI_TITLE) return 1;
    const byName = HEADING_NAME.exec(style.name.trim());
    if (byName) return Number(byName[1]);
    if (style.outlineLevel !== undefined)
      return style.outlineLevel < BODY_LEVEL ? style.outlineLevel + 1 : undefined;
    current = style.istdBase;
  }
  return undefined;
}
