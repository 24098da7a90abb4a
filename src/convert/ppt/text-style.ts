import type { ByteReader } from '../doc/byte-reader.ts';
import type { PptRecord } from './records.ts';

/**
 * StyleTextPropAtom ([MS-PPT]): paragraph runs (character count, indent level,
 * TextPFException) then character runs (count, TextCFException) over a text atom's
 * characters plus one. The exceptions are variable-length, their fields present per mask
 * bit, so every field is sized even when only the indent, bullet flag and emphasis are kept.
 */
export interface ParagraphRun {
  count: number;
  indent: number;
  /** The paragraph's own bullet switch; undefined when inherited from the master. */
  bullet: boolean | undefined;
}

export interface CharacterRun {
  count: number;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  /** Baseline offset in percent: superscript above 0, subscript below. */
  position: number;
  /** Index of the paragraph's StyleTextProp9 entry (fontStyle.pp9rt), when given. */
  pp9rt: number | undefined;
}

export interface TextStyle {
  paragraphs: ParagraphRun[];
  characters: CharacterRun[];
}

/** PFMasks bits ([MS-PPT]) with the bytes each adds, in field order. */
const PF_FIELDS: [mask: number, size: number][] = [
  [0x0000000f, 2], // bulletFlags (hasBullet, bulletHasFont/Color/Size)
  [0x00000080, 2], // bulletChar
  [0x00000010, 2], // bulletFontRef
  [0x00000040, 2], // bulletSize
  [0x00000020, 4], // bulletColor
  [0x00000800, 2], // textAlignment
  [0x00001000, 2], // lineSpacing
  [0x00002000, 2], // spaceBefore
  [0x00004000, 2], // spaceAfter
  [0x00000100, 2], // leftMargin
  [0x00000400, 2], // indent
  [0x00008000, 2], // defaultTabSize
];
const PF_TAB_STOPS = 0x00100000;
const PF_AFTER_TABS: [mask: number, size: number][] = [
  [0x00010000, 2], // fontAlign
  [0x000e0000, 2], // wrapFlags (charWrap, wordWrap, overflow)
  [0x00200000, 2], // textDirection
];
const PF_HAS_BULLET = 0x1;

/** CFMasks bits ([MS-PPT]) with the bytes each adds, in field order, after fontStyle. */
const CF_STYLE = 0x3eb7;
/** fHasStyle: fontStyle carries pp9rt in bits 10-13. */
const CF_PP9RT = 0x3c00;
const CF_FIELDS: [mask: number, size: number][] = [
  [0x00010000, 2], // fontRef
  [0x00200000, 2], // oldEAFontRef
  [0x00400000, 2], // ansiFontRef
  [0x00800000, 2], // symbolFontRef
  [0x00020000, 2], // fontSize
  [0x00040000, 4], // color
];
const CF_POSITION = 0x00080000;
const CF_AFTER_POSITION: [mask: number, size: number][] = [
  [0x00100000, 4], // pp10runid + unused
  [0x01000000, 2], // newEAFontRef
  [0x02000000, 2], // csFontRef
  [0x04000000, 4], // pp11ext
];

function skip(masks: number, fields: [number, number][]): number {
  let size = 0;
  for (const [mask, bytes] of fields) if (masks & mask) size += bytes;
  return size;
}

/** Reads the runs covering `length` characters; stops quietly where the atom is short or odd. */
export function readTextStyle(r: ByteReader, rec: PptRecord, length: number): TextStyle {
  const paragraphs: ParagraphRun[] = [];
  const characters: CharacterRun[] = [];
  let p = rec.body;
  const fits = (size: number) => p + size <= rec.end;
  try {
    for (let covered = 0; covered <= length && fits(10); ) {
      const count = r.u32(p);
      const indent = r.u16(p + 4);
      const masks = r.u32(p + 6);
      p += 10;
      const bullet = masks & PF_HAS_BULLET && fits(2) ? (r.u16(p) & PF_HAS_BULLET) !== 0 : undefined;
      p += skip(masks, PF_FIELDS);
      if (masks & PF_TAB_STOPS) p += 2 + (fits(2) ? r.u16(p) * 4 : 0);
      p += skip(masks, PF_AFTER_TABS);
      paragraphs.push({ count, indent, bullet });
      covered += Math.max(count, 1);
    }
    for (let covered = 0; covered <= length && fits(8); ) {
      const count = r.u32(p);
      const masks = r.u32(p + 4);
      p += 8;
      const style = masks & CF_STYLE && fits(2) ? r.u16(p) : 0;
      if (masks & CF_STYLE) p += 2;
      p += skip(masks, CF_FIELDS);
      const position = masks & CF_POSITION && fits(2) ? r.i16(p) : 0;
      if (masks & CF_POSITION) p += 2;
      p += skip(masks, CF_AFTER_POSITION);
      characters.push({
        count,
        bold: (masks & style & 0x1) !== 0,
        italic: (masks & style & 0x2) !== 0,
        underline: (masks & style & 0x4) !== 0,
        position,
        pp9rt: masks & CF_PP9RT ? (style >> 10) & 0xf : undefined,
      });
      covered += Math.max(count, 1);
    }
  } catch {
    // A damaged atom keeps the runs read so far; the text itself is unaffected.
  }
  return { paragraphs, characters };
}
