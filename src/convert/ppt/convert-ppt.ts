import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { limits } from '../../limits.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { ByteReader } from '../doc/byte-reader.ts';
import { openOleContainer } from '../doc/ole-container.ts';
import { summaryMetadata } from '../doc/ole-property-set.ts';
import { type DrawingItem, readDrawing } from './drawing.ts';
import { ENCRYPTED_MESSAGE, type PersistDirectory, readPersistDirectory } from './persist.ts';
import { type PictureLookup, readPictureStore } from './pictures.ts';
import { type PptRecord, RecordReader, RT } from './records.ts';
import { readSlideList, SLIDE_LIST, type SlideEntry } from './slide-list.ts';
import { buildTable } from './table.ts';
import { cellContent, isTitle, type TextBudget, textBlocks, titleText } from './text-blocks.ts';
import { readHyperlinks, type TextGroup } from './text-group.ts';

/**
 * PowerPoint 97-2003 (.ppt) → document, per [MS-PPT]: the persist directory (from the Current
 * User stream's edit chain) locates the DocumentContainer, whose SlideListWithText gives the
 * slides in order; each slide's drawing gives its text boxes, pictures and tables in z-order,
 * and its notes page the speaker notes. Per slide, as the PPTX converter does: a comment with
 * its number (`<!-- Slide number: 3 -->`), the title as an h2, the rest, then the notes under
 * a "Notes:" label. Masters (and so their placeholder prompts) are never rendered.
 */

/** SlideAtom body: notesIdRef after the 12-byte layout and the master id. */
const SLIDE_ATOM_NOTES = 16;

interface Context {
  reader: RecordReader;
  persist: PersistDirectory;
  hyperlinks: Map<number, string>;
  notes: Map<number, SlideEntry>;
  picture: PictureLookup;
  /** Containers and list entries already rendered: several slides may point at the same ones. */
  rendered: Set<number>;
  renderedEntries: Set<SlideEntry>;
  budget: TextBudget;
  /** Set when shape groups nested past limits.pptShapeDepth were left out. */
  tooDeep: boolean;
}

/** The container a slide list entry points at, if it is of `type` and not yet rendered. */
function container(ctx: Context, entry: SlideEntry, type: number): PptRecord | undefined {
  const offset = ctx.persist.offsets.get(entry.persistId);
  if (offset === undefined || ctx.rendered.has(offset)) return undefined;
  ctx.rendered.add(offset);
  const rec = ctx.reader.at(offset);
  return rec?.type === type && rec.container ? rec : undefined;
}

/** The drawing's items, with list texts the drawing does not reference added at the end. */
function pageItems(ctx: Context, page: PptRecord | undefined, entry: SlideEntry): DrawingItem[] {
  if (ctx.renderedEntries.has(entry)) return [];
  ctx.renderedEntries.add(entry);
  const used = new Set<number>();
  const outlineText = (index: number): TextGroup | undefined => {
    if (used.has(index)) return undefined;
    used.add(index);
    return entry.texts[index];
  };
  const drawing = page && ctx.reader.child(page, RT.ppDrawing);
  const tooDeep = () => {
    ctx.tooDeep = true;
  };
  const source = { reader: ctx.reader, hyperlinks: ctx.hyperlinks, outlineText, tooDeep };
  const items = drawing ? readDrawing(source, drawing) : [];
  // Files that keep text in the list reference it from the drawing; a missing or damaged
  // drawing must not lose it.
  if (used.size > 0 || !items.length) {
    entry.texts.forEach((group, i) => {
      if (!used.has(i)) items.push({ kind: 'text', group });
    });
  }
  return items;
}

function itemBlocks(ctx: Context, items: DrawingItem[]): Element[] {
  const r = ctx.reader.r;
  const blocks: Element[] = [];
  for (const item of items) {
    if (item.kind === 'text') for (const block of textBlocks(r, item.group, ctx.budget)) blocks.push(block);
    else if (item.kind === 'picture') {
      const img = ctx.picture(item.pib, item.alt);
      if (img) blocks.push(h('p', img));
    } else {
      const table = buildTable(item.cells, (cell) => cellContent(r, cell.groups, ctx.budget));
      if (table) blocks.push(table);
    }
  }
  return blocks;
}

/** SlideShowSlideInfoAtom flags at 10; fHidden is bit 2. */
function isHidden(ctx: Context, slide: PptRecord | undefined): boolean {
  const info = slide && ctx.reader.child(slide, RT.slideShowSlideInfoAtom);
  return !!info && info.end - info.body >= 12 && (ctx.reader.r.u16(info.body + 10) & 0x4) !== 0;
}

function slideBlocks(ctx: Context, entry: SlideEntry, number: number): ElementContent[] {
  const slide = container(ctx, entry, RT.slide);
  const items = pageItems(ctx, slide, entry);
  const titleIndex = items.findIndex((i) => i.kind === 'text' && isTitle(i.group) && titleText(i.group));
  const title = items[titleIndex];
  const blocks: ElementContent[] = [
    { type: 'comment', value: ` Slide number: ${number}${isHidden(ctx, slide) ? ' (hidden)' : ''} ` },
  ];
  if (title?.kind === 'text') {
    blocks.push(h('h2', titleText(title.group)));
    items.splice(titleIndex, 1);
  }
  for (const block of itemBlocks(ctx, items)) blocks.push(block);

  const atom = slide && ctx.reader.child(slide, RT.slideAtom);
  const notesId =
    atom && atom.end - atom.body >= SLIDE_ATOM_NOTES + 4 ? ctx.reader.r.u32(atom.body + SLIDE_ATOM_NOTES) : 0;
  const notesEntry = notesId ? ctx.notes.get(notesId) : undefined;
  if (notesEntry) {
    const notes = itemBlocks(ctx, pageItems(ctx, container(ctx, notesEntry, RT.notes), notesEntry));
    if (notes.length) {
      blocks.push(h('p', h('strong', 'Notes:')));
      for (const block of notes) blocks.push(block);
    }
  }
  return blocks;
}

function documentStream(ole: ReturnType<typeof openOleContainer>): [Uint8Array, Uint8Array | undefined] {
  // Dual-format files keep the PowerPoint 97 copy in this storage, next to a 95 one.
  const dual = ole.stream('PP97_DUALSTORAGE/PowerPoint Document');
  if (dual) return [dual, ole.stream('PP97_DUALSTORAGE/Current User') ?? ole.stream('Current User')];
  const main = ole.stream('PowerPoint Document');
  if (main && !ole.stream('PP40')) return [main, ole.stream('Current User')];
  throw new ConversionError(
    'UNPARSABLE_DOCUMENT',
    main
      ? 'The presentation is in the PowerPoint 95 (or older) format, which cannot be converted.'
      : 'The OLE file holds no PowerPoint Document stream, so it is not a PowerPoint presentation.',
  );
}

export const convertPpt: Converter = (input) => {
  const ole = openOleContainer(input.bytes, 'PowerPoint 97-2003 presentation');
  if (ole.stream('EncryptedSummary')) throw new ConversionError('ENCRYPTED_DOCUMENT', ENCRYPTED_MESSAGE);
  const [documentBytes, currentUser] = documentStream(ole);
  const reader = new RecordReader(new ByteReader(documentBytes, 'PowerPoint Document'));
  const persist = readPersistDirectory(reader, currentUser);
  const warnings: string[] = persist.damage ? [persist.damage] : [];
  const docOffset = persist.offsets.get(persist.docPersistId);
  const doc = docOffset === undefined ? undefined : reader.at(docOffset);
  if (doc?.type !== RT.document) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The presentation has no readable document record, so its slides cannot be located.',
    );
  }
  const documentChildren = reader.children(doc);
  const hyperlinks = readHyperlinks(
    reader,
    documentChildren.find((c) => c.type === RT.exObjList),
  );
  const ctx: Context = {
    reader,
    persist,
    hyperlinks,
    notes: new Map(
      readSlideList(reader, documentChildren, SLIDE_LIST.notes, hyperlinks).map((n) => [n.slideId, n]),
    ),
    picture: readPictureStore(reader, documentChildren, ole.stream('Pictures')),
    rendered: new Set(),
    renderedEntries: new Set(),
    tooDeep: false,
    budget: { paragraphs: limits.pptParagraphs },
  };
  const body: ElementContent[] = [];
  const unreadable: number[] = [];
  const slides = readSlideList(reader, documentChildren, SLIDE_LIST.slides, hyperlinks);
  for (let i = 0; i < slides.length; i++) {
    try {
      for (const block of slideBlocks(ctx, slides[i]!, i + 1)) body.push(block);
    } catch (err) {
      if (!(err instanceof ConversionError) || err.code === 'ENCRYPTED_DOCUMENT') throw err;
      if (err.code === 'UNPARSABLE_DOCUMENT') {
        unreadable.push(i + 1);
        continue;
      }
      // Over the record budget: what was read so far is kept.
      warnings.push(`${err.message} Slides from ${i + 1} on were left out.`);
      break;
    }
  }
  if (ctx.budget.paragraphs < 0) {
    warnings.push(
      `The presentation has more than ${limits.pptParagraphs} paragraphs (limits.pptParagraphs); the rest was left out.`,
    );
  }
  if (ctx.tooDeep) {
    warnings.push(
      `Shape groups nested more than ${limits.pptShapeDepth} deep (limits.pptShapeDepth) were left out.`,
    );
  }
  if (unreadable.length) {
    warnings.push(`Slide(s) ${unreadable.slice(0, 20).join(', ')} are damaged and could not be read.`);
  }
  if (reader.damaged)
    warnings.push('The presentation is truncated or damaged; the readable part was converted.');
  return {
    kind: 'document',
    tree: { type: 'root', children: body },
    metadata: summaryMetadata(ole.stream('\u0005SummaryInformation')),
    contentType: 'application/vnd.ms-powerpoint',
    baseUrl: input.url,
    warnings,
  };
};
