import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { hyperlinkTarget } from './fields.ts';
import type { FkpRun } from './fkp.ts';
import { InlineBuilder } from './inline-builder.ts';
import type { Piece } from './piece-table.ts';
import {
  type CharFormat,
  type CharFormatCursor,
  type ParagraphProps,
  paragraphProps,
} from './text-properties.ts';

/** One paragraph of a story: its inline content and properties. */
export interface Paragraph {
  content: ElementContent[];
  props: ParagraphProps;
  /** Ended by a cell mark (0x07) rather than a paragraph mark. */
  cellMark: boolean;
}

export interface StorySource {
  text: string;
  pieces: readonly Piece[];
  papx: readonly FkpRun[];
  chars: CharFormatCursor;
  /** Footnote/endnote references of the story: which CPs hold one, and its element. */
  notes?: { has(cp: number): boolean; ref(cp: number): Element };
  /** The image element for the inline picture at this Data stream offset, if readable. */
  picture?: (offset: number) => Element | undefined;
  /** The image element for the floating picture anchored at `cp`, if readable. */
  drawing?: (cp: number) => Element | undefined;
  /** Text boxes by anchor CP; `used` collects the starts of those placed at their anchor. */
  textBoxes?: { at(cp: number): [number, number] | undefined; used: Set<number> };
  /** Paragraphs still to be kept, shared by all stories of the document. */
  budget: { paragraphs: number };
}

interface OpenField {
  code: string;
  inResult: boolean;
  /** Where a HYPERLINK field's result starts: paragraph number and inline index. */
  link?: { paragraph: number; inline: number; href: string };
}

/** Fields nest a few levels in real documents; deeper ones are read as plain text. */
const MAX_FIELD_DEPTH = 64;
/** Field instructions longer than this are never links (URLs stay far below). */
const MAX_FIELD_CODE = 8192;

/** Characters with a meaning in Word's text stream ([MS-DOC] 2.8.25). */
const PICTURE = 0x01;
const CELL_MARK = 0x07;
const DRAWING = 0x08;
const LINE_BREAK = 0x0b;
const PAGE_BREAK = 0x0c;
const PARAGRAPH_MARK = 0x0d;
const FIELD_BEGIN = 0x13;
const FIELD_SEPARATOR = 0x14;
const FIELD_END = 0x15;
const NB_HYPHEN = 0x1e;
const NBSP = 0xa0;
const SYMBOL = 0x28;

/**
 * Reads the CP range [start, end) of the text into paragraphs: paragraph and cell marks end
 * paragraphs, field codes are dropped in favour of their results (HYPERLINK results become
 * links), and Word's special characters become text or nothing.
 */
export function readStory(src: StorySource, start: number, end: number): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  const inline = new InlineBuilder();
  const fields: OpenField[] = [];
  let codeDepth = 0;
  let format: CharFormat | undefined;
  let formatUntil = start;
  const last = Math.min(end, src.text.length);

  // Counts every paragraph mark, kept or not: a link only wraps content of its own paragraph.
  let paragraphNo = 0;
  let boxes: [number, number][] = [];
  const endParagraph = (cp: number, cellMark: boolean): void => {
    paragraphNo++;
    const content = inline.take();
    const props = paragraphProps(src.pieces, src.papx, cp);
    // Empty paragraphs matter only inside tables (empty cells, row ends).
    if (content.length > 0 || props.depth > 0) {
      paragraphs.push({ content, props, cellMark });
      src.budget.paragraphs--;
    }
    // Text boxes anchored here follow the paragraph, unless that would split a table.
    if (props.depth === 0 && boxes.length) {
      const inner: StorySource = { ...src, notes: undefined, textBoxes: undefined };
      for (const [boxStart, boxEnd] of boxes) {
        if (src.textBoxes?.used.has(boxStart)) continue;
        src.textBoxes?.used.add(boxStart);
        paragraphs.push(...readStory(inner, boxStart, boxEnd));
      }
    }
    boxes = [];
  };

  for (let cp = start; cp < last && src.budget.paragraphs > 0; cp++) {
    if (cp >= formatUntil || !format) {
      const at = src.chars.at(cp);
      format = at.format;
      formatUntil = at.until;
    }
    const ch = src.text.charCodeAt(cp);
    if (ch === FIELD_BEGIN) {
      if (fields.length >= MAX_FIELD_DEPTH) continue;
      fields.push({ code: '', inResult: false });
      codeDepth++;
      continue;
    }
    if (ch === FIELD_SEPARATOR || ch === FIELD_END) {
      const field = fields[fields.length - 1];
      if (!field) continue;
      if (ch === FIELD_SEPARATOR) {
        if (field.inResult) continue;
        field.inResult = true;
        codeDepth--;
        const href = codeDepth === 0 ? hyperlinkTarget(field.code) : undefined;
        if (href) field.link = { paragraph: paragraphNo, inline: inline.mark(), href };
        continue;
      }
      fields.pop();
      if (!field.inResult) codeDepth--;
      const link = field.link;
      if (link?.paragraph === paragraphNo)
        inline.wrapFrom(link.inline, (children) => h('a', { href: link.href }, children));
      continue;
    }
    if (ch === PARAGRAPH_MARK || ch === CELL_MARK || ch === PAGE_BREAK) {
      endParagraph(cp, ch === CELL_MARK);
      continue;
    }
    if (codeDepth > 0) {
      const top = fields[fields.length - 1];
      if (top && !top.inResult && top.code.length < MAX_FIELD_CODE) top.code += src.text[cp];
      continue;
    }
    if (src.notes?.has(cp)) {
      inline.node(src.notes.ref(cp));
      continue;
    }
    // A symbol-font character (sprmCSymbol) stands in the text as a special "(": its glyph
    // has no dependable Unicode equivalent.
    if (ch === SYMBOL && format.special) continue;
    if (ch >= 0x20 && ch !== NBSP) {
      // Copy the run of ordinary characters at once.
      let stop = cp + 1;
      const limit = Math.min(formatUntil, last);
      while (stop < limit) {
        const c = src.text.charCodeAt(stop);
        if (c < 0x20 || c === NBSP || (c === SYMBOL && format.special) || src.notes?.has(stop)) break;
        stop++;
      }
      inline.text(src.text.slice(cp, stop), format);
      cp = stop - 1;
    } else if (ch === LINE_BREAK) inline.node(h('br'));
    else if (ch === 0x09 || ch === NBSP) inline.text(' ', format);
    else if (ch === NB_HYPHEN) inline.text('-', format);
    else if (ch === PICTURE && format.special && format.picture !== undefined) {
      const image = src.picture?.(format.picture);
      if (image) inline.node(image);
    } else if (ch === DRAWING) {
      const image = src.drawing?.(cp);
      if (image) inline.node(image);
      const box = src.textBoxes?.at(cp);
      if (box) boxes.push(box);
    }
    // Everything else below 0x20 is an anchor or marker (pictures, drawings, annotation and
    // note marks, optional hyphens) with no text of its own.
  }
  const rest = inline.take();
  if (rest.length && src.budget.paragraphs > 0)
    paragraphs.push({
      content: rest,
      props: paragraphProps(src.pieces, src.papx, last - 1),
      cellMark: false,
    });
  return paragraphs;
}
