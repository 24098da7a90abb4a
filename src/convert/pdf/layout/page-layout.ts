import type { Element } from 'hast';
import type { Box, DetectedTable, LinkArea, PageContent, TextRun } from '../page-content.ts';
import { CJK } from '../text-cleanup.ts';
import { buildBlocks } from './blocks.ts';
import { buildLines, needsSpace } from './lines.ts';
import { readingOrder } from './reading-order.ts';
import type { Block, Inline, Line, OcrScore, PageBlock, TextLine } from './types.ts';

/** A page's blocks in reading order; `vertical` when they were laid out turned a quarter. */
export interface PageLayout {
  blocks: PageBlock[];
  vertical: boolean;
}

/**
 * One page's content → its blocks in reading order. Tables found on the page stand in for
 * the runs they consumed and are ordered by their box like any block. Pages set mostly in
 * vertical writing are turned a quarter first, so columns read as lines, right to left.
 */
export function layoutPage(
  content: PageContent,
  tables: readonly { table: DetectedTable; node: Element }[],
): PageLayout {
  const consumed = new Set<number>();
  for (const { table } of tables) for (const i of table.runs) consumed.add(i);
  let runs = content.runs.filter((_, i) => !consumed.has(i));
  const vertical = isVertical(runs);
  if (vertical) runs = runs.map((r) => turn(r, content.width));
  // Sideways text in the side margins of a horizontal page is a stamp ("Downloaded from …").
  else
    runs = runs.filter(
      (r) => r.dir !== 'ttb' || (r.x > content.width * 0.1 && r.x + r.width < content.width * 0.9),
    );
  const blocks: Block[] = buildBlocks(buildLines(runs, vertical ? content.height : content.width));
  const tableOcr = new Map<Element, OcrScore | undefined>();
  for (const { table, node } of tables) {
    blocks.push({ ...table.box, lines: [], table: node });
    // An OCR'd page's runs are all OCR words, which carry a confidence.
    if (content.runs[0]?.confidence !== undefined)
      tableOcr.set(node, ocrScore(table.runs.map((i) => content.runs[i]!)));
  }
  const rtl =
    blocks.reduce((n, b) => n + b.lines.filter((l) => l.rtl).length, 0) >
    blocks.reduce((n, b) => n + b.lines.length, 0) / 2;
  const links = vertical ? [] : content.links;
  const ordered = readingOrder(blocks, rtl).map((block): PageBlock => {
    const box: Box = { x: block.x, y: block.y, width: block.width, height: block.height };
    if (block.table) {
      const ocr = tableOcr.get(block.table);
      return { kind: 'table', page: content.index, box, node: block.table, ...(ocr && { ocr }) };
    }
    return { kind: 'text', page: content.index, box, lines: block.lines.map((l) => textLine(l, links)) };
  });
  return { blocks: ordered, vertical };
}

/** The OCR confidence of runs that are OCR words; undefined for text-layer runs. */
function ocrScore(runs: readonly TextRun[]): OcrScore | undefined {
  let sum = 0;
  let words = 0;
  for (const r of runs)
    if (r.confidence !== undefined) {
      sum += r.confidence;
      words++;
    }
  return words > 0 ? { sum, words } : undefined;
}

function isVertical(runs: readonly TextRun[]): boolean {
  let ttb = 0;
  let all = 0;
  for (const r of runs) {
    all += r.text.length;
    if (r.dir === 'ttb') ttb += r.text.length;
  }
  return ttb * 2 > all;
}

/** Vertical columns → horizontal lines: top-to-bottom becomes left-to-right, right-to-left becomes top-down. */
function turn(r: TextRun, pageWidth: number): TextRun {
  if (r.dir !== 'ttb') return r;
  return { ...r, x: r.y, y: pageWidth - (r.x + r.width), width: r.height, height: r.width, dir: 'ltr' };
}

function linkAt(links: readonly LinkArea[], r: TextRun): string | undefined {
  if (links.length === 0) return undefined;
  const cx = r.x + r.width / 2;
  const cy = r.y + r.height / 2;
  for (const l of links)
    if (cx >= l.x && cx <= l.x + l.width && cy >= l.y && cy <= l.y + l.height) return l.url;
  return undefined;
}

/**
 * Letters of a right-to-left run against letters of a left-to-right one: always two words.
 * (The space between them is often drawn inside one run's box, leaving no gap to measure.)
 */
function scriptSwitch(prev: TextRun, run: TextRun, before: string, after: string): boolean {
  const dirs = prev.dir + run.dir;
  return (dirs === 'ltrrtl' || dirs === 'rtlltr') && /\p{L}$/u.test(before) && /^\p{L}/u.test(after);
}

function textLine(line: Line, links: readonly LinkArea[]): TextLine {
  const runs = line.rtl ? [...line.runs].reverse() : line.runs;
  const inlines: Inline[] = [];
  let text = '';
  let prev: TextRun | undefined;
  let boldChars = 0;
  let italicChars = 0;
  let monoChars = 0;
  for (const run of runs) {
    let piece = run.text;
    if (prev) {
      const gap = line.rtl ? prev.x - (run.x + run.width) : run.x - (prev.x + prev.width);
      if (
        needsSpace(text, piece, gap, Math.max(run.fontSize, prev.fontSize)) ||
        scriptSwitch(prev, run, text, piece)
      )
        piece = ` ${piece}`;
    }
    const href = linkAt(links, run);
    const last = inlines[inlines.length - 1];
    if (
      last &&
      last.href === href &&
      last.bold === run.bold &&
      last.italic === run.italic &&
      last.mono === run.monospace
    )
      last.text += piece;
    else inlines.push({ text: piece, href, bold: run.bold, italic: run.italic, mono: run.monospace });
    text += piece;
    const n = run.text.trim().length;
    if (run.bold) boldChars += n;
    if (run.italic) italicChars += n;
    if (run.monospace) monoChars += n;
    prev = run;
  }
  const chars = text.replace(/\s/g, '').length || 1;
  const out: TextLine = {
    inlines,
    text,
    x: line.x,
    y: line.y,
    right: line.x + line.width,
    bottom: line.y + line.height,
    fontSize: line.fontSize,
    bold: boldChars / chars > 0.6,
    italic: italicChars / chars > 0.8,
    mono: monoChars / chars > 0.8,
    cjk: CJK.test(text),
  };
  // OCR words carry a confidence; a text layer's runs never do.
  if (runs[0]?.confidence !== undefined) out.ocr = ocrScore(runs);
  return out;
}
