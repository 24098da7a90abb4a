import type { Element, ElementContent, Root } from 'hast';
import { markPage } from '../../../document/model.ts';
import type { Box } from '../page-content.ts';
import { CJK } from '../text-cleanup.ts';
import { appendRows, continuesTable } from './continued-tables.ts';
import { bodySize, headingKind, headingLevels } from './headings.ts';
import { type Paragraph, splitParagraphs } from './paragraphs.ts';
import type { OcrScore, PageBlock, TextLine } from './types.ts';

type TableItem = Extract<PageBlock, { kind: 'table' }>;
type Item = { kind: 'p'; p: Paragraph } | { kind: 'table'; block: TableItem };

const SENTENCE_END = /[.!?:;。！？」』"”]$/;

/** Where one piece of a page's layout (a paragraph, a run of list items, a table) went in the tree. */
export interface Placement {
  /** 0-based page index. */
  page: number;
  type: 'heading' | 'paragraph' | 'list' | 'code' | 'table';
  /** Heading level. */
  level?: number;
  /** In the frame the page was laid out in (turned, for vertical writing). */
  box: Box;
  ocr?: OcrScore;
  /** The top-level element holding the piece. */
  node: Element;
  /** The piece alone: `node` itself, or an element of its own when it is only part of `node`. */
  part: Element;
}

export interface TreeOptions {
  /** Mark each top-level element with its page (`data.page`, 1-based). */
  pageMarks?: boolean;
  /** Filled with where each piece went, in reading order. */
  placements?: Placement[];
}

/** The whole document's blocks, in reading order, as semantic hast. */
export function buildTree(pages: readonly { blocks: PageBlock[] }[], options: TreeOptions = {}): Root {
  const { placements } = options;
  const marks = options.pageMarks === true || placements !== undefined;
  const items: Item[] = [];
  for (const page of pages)
    for (const block of page.blocks) {
      if (block.kind === 'table') items.push({ kind: 'table', block });
      else for (const p of splitParagraphs(block.lines, block.page)) items.push({ kind: 'p', p });
    }
  const paragraphs = items.flatMap((i) => (i.kind === 'p' ? [i.p] : []));
  const body = bodySize(paragraphs);
  const kinds = new Map<Paragraph, 'size' | 'bold'>();
  for (const [i, p] of paragraphs.entries()) {
    const kind = headingKind(p, body, paragraphs[i + 1]);
    if (kind) kinds.set(p, kind);
  }
  const level = headingLevels([...kinds].map(([p, kind]) => ({ p, kind })));
  const children: ElementContent[] = [];
  /** A top-level element, marked with the page it starts on when asked. */
  const add = (node: Element, page: number): Element => {
    if (marks) markPage(node, page + 1);
    children.push(node);
    return node;
  };
  const place = (p: Paragraph, type: Placement['type'], node: Element, part = node): Placement => {
    const placement: Placement = { page: p.page, type, box: linesBox(p.lines), node, part };
    const ocr = linesOcr(p.lines);
    if (ocr) placement.ocr = ocr;
    placements?.push(placement);
    return placement;
  };
  let list: Element | undefined;
  let listPlacement: Placement | undefined;
  let lastValue: number | undefined;
  let lastPara: { node: Element; p: Paragraph; placement?: Placement } | undefined;
  let lastTable: { node: Element; block: TableItem; placement?: Placement } | undefined;
  for (const item of items) {
    if (item.kind === 'table') {
      const { block } = item;
      const continued = lastTable && continuesTable(lastTable.block, block);
      let node: Element;
      if (lastTable && continued) {
        // A table split by a page break: its rows run on in the table the first page opened.
        node = lastTable.node;
        const before = lastTable.placement;
        if (before && before.part === before.node) before.part = structuredClone(before.node);
        appendRows(node, block.node);
      } else node = add(block.node, block.page);
      let placement: Placement | undefined;
      if (placements) {
        placement = { page: block.page, type: 'table', box: block.box, node, part: block.node };
        if (block.ocr) placement.ocr = block.ocr;
        placements.push(placement);
      }
      lastTable = { node, block, placement };
      list = undefined;
      lastPara = undefined;
      continue;
    }
    lastTable = undefined;
    const p = item.p;
    const kind = kinds.get(p);
    if (kind) {
      const h = level(p, kind);
      const node = add(element(`h${h}`, inlineContent(p.lines, 0)), p.page);
      if (placements) place(p, 'heading', node).level = h;
      list = undefined;
      lastPara = undefined;
    } else if (p.code) {
      const node = add(
        element('pre', [element('code', [{ type: 'text', value: codeText(p.lines) }])]),
        p.page,
      );
      if (placements) place(p, 'code', node);
      list = undefined;
      lastPara = undefined;
    } else if (p.list) {
      const tag = p.list.ordered ? 'ol' : 'ul';
      // A number that does not follow on (1, 2, then 1 again) starts a new list.
      const restart =
        p.list.ordered && p.list.value !== undefined && lastValue !== undefined && p.list.value <= lastValue;
      lastValue = p.list.value;
      if (!list || list.tagName !== tag || restart) {
        list = add(element(tag, []), p.page);
        if (p.list.ordered && p.list.value !== undefined && p.list.value !== 1)
          list.properties.start = p.list.value;
        listPlacement = undefined;
      }
      const li = element('li', inlineContent(p.lines, p.list.markerLength));
      list.children.push(li);
      if (placements) listPlacement = placeItem(listPlacement, list, li, p);
      lastPara = undefined;
    } else if (lastPara && continues(lastPara.p, p)) {
      // A paragraph broken by a page or column break: the text runs on.
      const glue = joiner(lastLine(lastPara.p).text, p.lines[0]!.text);
      const added = inlineContent(p.lines, 0);
      let placement: Placement | undefined;
      if (lastPara.placement) {
        // Each piece keeps its own copy, since appending merges text into the node's.
        const before = lastPara.placement;
        if (before.part === before.node) before.part = element('p', structuredClone(before.node.children));
        if (glue === 'dehyphen') appendInlines(before.part.children, [], glue);
        placement = place(p, 'paragraph', lastPara.node, element('p', structuredClone(added)));
      }
      appendInlines(lastPara.node.children, added, glue);
      lastPara.p = p;
      lastPara.placement = placement;
    } else {
      const node = add(element('p', inlineContent(p.lines, 0)), p.page);
      list = undefined;
      lastPara = { node, p };
      if (placements) lastPara.placement = place(p, 'paragraph', node);
    }
  }
  return { type: 'root', children };

  /** List items are placed as runs: those of one list on one page make one piece. */
  function placeItem(last: Placement | undefined, node: Element, li: Element, p: Paragraph): Placement {
    if (last?.node === node && last.page === p.page) {
      last.part.children.push(li);
      last.box = union(last.box, linesBox(p.lines));
      const ocr = linesOcr(p.lines);
      if (ocr) last.ocr = { sum: (last.ocr?.sum ?? 0) + ocr.sum, words: (last.ocr?.words ?? 0) + ocr.words };
      return last;
    }
    const part = element(node.tagName, [li]);
    // Numbered items keep their numbers when written alone.
    if (node.tagName === 'ol')
      part.properties.start = Number(node.properties.start ?? 1) + node.children.length - 1;
    return place(p, 'list', node, part);
  }
}

function linesBox(lines: readonly TextLine[]): Box {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const l of lines) {
    x0 = Math.min(x0, l.x);
    y0 = Math.min(y0, l.y);
    x1 = Math.max(x1, l.right);
    y1 = Math.max(y1, l.bottom);
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function union(a: Box, b: Box): Box {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

function linesOcr(lines: readonly TextLine[]): OcrScore | undefined {
  let sum = 0;
  let words = 0;
  for (const l of lines)
    if (l.ocr) {
      sum += l.ocr.sum;
      words += l.ocr.words;
    }
  return words > 0 ? { sum, words } : undefined;
}

function lastLine(p: Paragraph): TextLine {
  return p.lines[p.lines.length - 1]!;
}

/** Whether `next` continues `prev` across a page or column break. */
function continues(prev: Paragraph, next: Paragraph): boolean {
  const end = lastLine(prev).text.trim();
  const start = next.lines[0]!.text.trim();
  return (
    next.page !== prev.page &&
    !SENTENCE_END.test(end) &&
    /^\p{Ll}/u.test(start) &&
    Math.abs(next.fontSize - prev.fontSize) < prev.fontSize * 0.1
  );
}

function element(tagName: string, children: ElementContent[]): Element {
  return { type: 'element', tagName, properties: {}, children };
}

/** How two lines of one paragraph join: undoing a hyphenation, no space in CJK, else a space. */
function joiner(before: string, after: string): '' | ' ' | 'dehyphen' {
  const a = before.trimEnd();
  const b = after.trimStart();
  if (/\p{L}-$/u.test(a) && /^\p{Ll}/u.test(b)) return 'dehyphen';
  if (CJK.test(a.slice(-1)) || CJK.test(b.charAt(0))) return '';
  return ' ';
}

function appendInlines(target: ElementContent[], add: ElementContent[], glue: '' | ' ' | 'dehyphen'): void {
  const last = target[target.length - 1];
  if (glue === 'dehyphen' && last?.type === 'text') last.value = last.value.trimEnd().replace(/-$/, '');
  else if (glue === 'dehyphen' && last?.type === 'element') {
    const t = last.children[last.children.length - 1];
    if (t?.type === 'text') t.value = t.value.trimEnd().replace(/-$/, '');
  } else if (glue === ' ' && last) target.push({ type: 'text', value: ' ' });
  for (const node of add) {
    const prev = target[target.length - 1];
    if (node.type === 'text' && prev?.type === 'text') prev.value += node.value;
    else target.push(node);
  }
}

/** A paragraph's lines as phrasing content: text with links, lines joined. */
function inlineContent(lines: readonly TextLine[], skip: number): ElementContent[] {
  const out: ElementContent[] = [];
  for (const [i, line] of lines.entries()) {
    const pieces: ElementContent[] = [];
    let drop = i === 0 ? skip : 0;
    for (const inline of line.inlines) {
      let value = inline.text;
      if (drop > 0) {
        const cut = Math.min(drop, value.length);
        value = value.slice(cut);
        drop -= cut;
      }
      if (i === 0 && pieces.length === 0) value = value.trimStart();
      if (!value) continue;
      const text = { type: 'text' as const, value };
      if (inline.href) {
        const prev = pieces[pieces.length - 1];
        if (prev?.type === 'element' && prev.properties.href === inline.href) {
          const t = prev.children[prev.children.length - 1];
          if (t?.type === 'text') t.value += value;
        } else
          pieces.push({ type: 'element', tagName: 'a', properties: { href: inline.href }, children: [text] });
      } else pieces.push(text);
    }
    if (i === 0) appendInlines(out, pieces, '');
    else appendInlines(out, pieces, joiner(lines[i - 1]!.text, line.text));
  }
  const last = out[out.length - 1];
  if (last?.type === 'text') last.value = last.value.trimEnd();
  return out;
}

/** Monospace lines keep their breaks; indentation is rebuilt from the x offset. */
function codeText(lines: readonly TextLine[]): string {
  const left = Math.min(...lines.map((l) => l.x));
  return lines
    .map(
      (l) =>
        ' '.repeat(Math.max(0, Math.min(40, Math.round((l.x - left) / (l.fontSize * 0.6))))) +
        l.text.trimEnd(),
    )
    .join('\n');
}
