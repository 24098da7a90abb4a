import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { limits } from '../../limits.ts';
import { ConversionError, type Converter } from '../converter.ts';
import { type BlockContext, buildBlocks } from './blocks.ts';
import { ByteReader } from './byte-reader.ts';
import { readDrawings } from './drawings.ts';
import { FC, readFib } from './fib.ts';
import { readFkpRuns } from './fkp.ts';
import { readLists } from './lists.ts';
import { NoteCollector, notesSection, readNoteRanges } from './notes.ts';
import { openOleContainer } from './ole-container.ts';
import { summaryMetadata } from './ole-property-set.ts';
import { type Picture, readPicture } from './picture.ts';
import { readPieceTable } from './piece-table.ts';
import { readStory, type StorySource } from './story-reader.ts';
import { headingLevel, readStyleSheet } from './style-sheet.ts';
import { CharFormatCursor } from './text-properties.ts';

/**
 * Word 97-2003 (.doc) → document, per [MS-DOC]: in the OLE container, the FIB locates the
 * piece table (the text), the PAPX/CHPX pages (paragraph and character properties), the
 * style sheet, list definitions, notes and drawings in the table stream. The main text is
 * converted with its footnotes, endnotes, pictures and text boxes (after the paragraph that
 * anchors them); headers, footers and comments are left out, as Word's reading view does.
 */

/** Wraps an optional structure: damage there costs that feature, with a warning, not the document. */
function optional<T>(what: string, warnings: string[], fallback: T, read: () => T): T {
  try {
    return read();
  } catch {
    warnings.push(`The document's ${what} could not be read and were ignored.`);
    return fallback;
  }
}

/** Pictures as data-URI image elements, each decoded once; damaged ones are left out. */
function imageElements(read: (key: number) => Picture | undefined): (key: number) => Element | undefined {
  const sources = new Map<number, string | undefined>();
  return (key) => {
    if (!sources.has(key)) {
      let src: string | undefined;
      try {
        const picture = read(key);
        if (picture) src = `data:${picture.mime};base64,${Buffer.from(picture.bytes).toString('base64')}`;
      } catch {
        // The text around a damaged picture is not affected.
      }
      sources.set(key, src);
    }
    const src = sources.get(key);
    return src ? h('img', { src, alt: '' }) : undefined;
  };
}

export const convertDoc: Converter = (input) => {
  const container = openOleContainer(input.bytes, 'Word 97-2003 document');
  const wordBytes = container.stream('WordDocument');
  if (!wordBytes) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      'The OLE file holds no WordDocument stream, so it is not a Word document.',
    );
  }
  const word = new ByteReader(wordBytes, 'WordDocument');
  const fib = readFib(word);
  const tableBytes = container.stream(fib.tableStream);
  if (!tableBytes) {
    throw new ConversionError(
      'UNPARSABLE_DOCUMENT',
      `The Word document's ${fib.tableStream} stream is missing.`,
    );
  }
  const table = new ByteReader(tableBytes, fib.tableStream);
  const clx = fib.fcLcb(FC.clx);
  const pieces = readPieceTable(table, word, clx.fc, clx.lcb);
  const warnings: string[] = [];
  if (pieces.truncated)
    warnings.push(
      'The document text is truncated or its piece table is damaged; the readable part was converted.',
    );

  const papx = optional('paragraph properties', warnings, [], () =>
    readFkpRuns(table, word, fib.fcLcb(FC.plcfBtePapx), 'papx'),
  );
  const chpx = optional('character properties', warnings, [], () =>
    readFkpRuns(table, word, fib.fcLcb(FC.plcfBteChpx), 'chpx'),
  );
  const styles = optional('styles', warnings, [], () => {
    const stsh = fib.fcLcb(FC.stshf);
    return readStyleSheet(table, stsh.fc, stsh.lcb);
  });
  const lists = optional('list definitions', warnings, { lookup: () => undefined }, () =>
    readLists(table, fib.fcLcb(FC.plfLst), fib.fcLcb(FC.plfLfo)),
  );

  // The document parts follow each other in CP space, in this order.
  const mainEnd = Math.min(fib.ccpText, pieces.text.length);
  const ftnStart = fib.ccpText;
  const ednStart = ftnStart + fib.ccpFtn + fib.ccpHdd + fib.ccpAtn;
  const txbxStart = ednStart + fib.ccpEdn;
  const noteParts = optional('footnotes', warnings, [], () => [
    readNoteRanges(
      table,
      fib.fcLcb(FC.plcffndRef),
      fib.fcLcb(FC.plcffndTxt),
      ftnStart,
      ftnStart + fib.ccpFtn,
    ),
    readNoteRanges(
      table,
      fib.fcLcb(FC.plcfendRef),
      fib.fcLcb(FC.plcfendTxt),
      ednStart,
      ednStart + fib.ccpEdn,
    ),
  ]);
  const notes = new NoteCollector(noteParts);

  const source: StorySource = {
    text: pieces.text,
    pieces: pieces.pieces,
    papx,
    chars: new CharFormatCursor(pieces.pieces, chpx),
    budget: { paragraphs: limits.docParagraphs },
  };
  const dataBytes = container.stream('Data');
  if (dataBytes) {
    const data = new ByteReader(dataBytes, 'Data');
    source.picture = imageElements((offset) => readPicture(data, offset));
  }
  const txbxPart: [number, number] = [txbxStart, txbxStart + fib.ccpTxbx];
  const drawings = optional('drawings', warnings, undefined, () =>
    readDrawings(
      table,
      word,
      {
        dggInfo: fib.fcLcb(FC.dggInfo),
        plcSpaMom: fib.fcLcb(FC.plcSpaMom),
        plcftxbxTxt: fib.fcLcb(FC.plcftxbxTxt),
      },
      txbxPart,
    ),
  );
  const usedBoxes = new Set<number>();
  if (drawings) source.drawing = imageElements((cp) => drawings.pictureAt(cp));
  const levels = new Map<number, number | undefined>();
  const ctx: BlockContext = {
    headingLevel: (istd) => {
      if (!levels.has(istd)) levels.set(istd, headingLevel(styles, istd));
      return levels.get(istd);
    },
    lists,
    counters: new Map(),
  };

  const textBoxes = drawings && { at: (cp: number) => drawings.textBoxAt(cp), used: usedBoxes };
  const body: ElementContent[] = buildBlocks(readStory({ ...source, notes, textBoxes }, 0, mainEnd), ctx);
  // Text boxes not placed at an anchor follow the main text.
  const rest = drawings?.textBoxes.length
    ? drawings.textBoxes.filter(([start]) => !usedBoxes.has(start))
    : fib.ccpTxbx > 0
      ? [txbxPart]
      : [];
  for (const [start, end] of rest) body.push(...buildBlocks(readStory(source, start, end), ctx));
  if (notes.notes.length) {
    body.push(
      notesSection(
        notes.notes.map((n) => ({
          label: n.label,
          blocks: buildBlocks(readStory(source, n.range[0], n.range[1]), ctx),
        })),
      ),
    );
  }

  if (source.budget.paragraphs <= 0) {
    warnings.push(
      `The document has more than ${limits.docParagraphs} paragraphs and table cells (limits.docParagraphs); the rest was left out.`,
    );
  }
  return {
    kind: 'document',
    tree: { type: 'root', children: body },
    metadata: summaryMetadata(container.stream('\u0005SummaryInformation')),
    contentType: 'application/msword',
    baseUrl: input.url,
    warnings,
  };
};
