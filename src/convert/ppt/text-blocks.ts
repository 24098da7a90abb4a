import type { Element, ElementContent } from 'hast';
import type { ByteReader } from '../doc/byte-reader.ts';
import { TEXT_TYPE, type TextGroup, type TextLink } from './text-group.ts';
import { type CharacterRun, readTextStyle } from './text-style.ts';

/**
 * A shape's text → blocks. Paragraphs end at CR; a vertical tab is a line break inside one.
 * Body placeholders are bulleted by their master unless a paragraph switches its bullet off;
 * other text is bulleted only where a paragraph switches it on. Indent levels nest the lists.
 */
interface Paragraph {
  content: ElementContent[];
  indent: number;
  bullet: boolean;
  /** The number of a numbered paragraph's list, when it starts one; undefined for bullets. */
  start: number | undefined;
}

/** Text types whose master style puts bullets on every paragraph. */
const BULLETED_TYPES = new Set<number>([TEXT_TYPE.body, TEXT_TYPE.halfBody, TEXT_TYPE.quarterBody]);
/** PowerPoint allows five outline levels; deeper values are damage. */
const MAX_LEVEL = 4;
const NO_RUN: CharacterRun = {
  count: 0,
  bold: false,
  italic: false,
  underline: false,
  position: 0,
  pp9rt: undefined,
};

/** Control characters other than tab and the paragraph/line marks handled by position. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\0-\x08\x0c\x0e-\x1f\ufffe\uffff]/g;

function clean(text: string): string {
  return text.replace(CONTROL, '').replaceAll('\t', ' ');
}

/** Plain element construction: text runs are the hot path on big decks, where `h` costs. */
function el(tagName: string, children: ElementContent[], properties: Element['properties'] = {}): Element {
  return { type: 'element', tagName, properties, children };
}

function styledText(text: string, run: CharacterRun): ElementContent[] {
  const nodes: ElementContent[] = [];
  if (!text.includes('\v')) nodes.push({ type: 'text', value: clean(text) });
  else {
    text.split('\v').forEach((line, i) => {
      if (i > 0) nodes.push(el('br', []));
      if (line) nodes.push({ type: 'text', value: clean(line) });
    });
  }
  if (!(run.bold || run.italic || run.position) || !text.trim()) return nodes;
  let wrapped = nodes;
  if (run.position > 0) wrapped = [el('sup', wrapped)];
  else if (run.position < 0) wrapped = [el('sub', wrapped)];
  if (run.italic) wrapped = [el('em', wrapped)];
  if (run.bold) wrapped = [el('strong', wrapped)];
  return wrapped;
}

/** Position in a group's style runs and links; paragraphs are read in order, so it only advances. */
interface Cursor {
  runs: CharacterRun[];
  /** Cumulative end of each run. */
  runEnds: number[];
  run: number;
  links: TextLink[];
  link: number;
}

function cursorFor(group: TextGroup, runs: CharacterRun[]): Cursor {
  let at = 0;
  const runEnds = runs.map((run) => (at += run.count));
  // Overlapping ranges are damage; keeping disjoint ones keeps the walk linear.
  const links: TextLink[] = [];
  for (const link of [...group.links].sort((a, b) => a.start - b.start)) {
    if (link.end > link.start && link.start >= (links[links.length - 1]?.end ?? 0)) links.push(link);
  }
  return { runs, runEnds, run: 0, links, link: 0 };
}

/** The style run holding character `at`. */
function runAt(c: Cursor, at: number): CharacterRun {
  while (c.run < c.runEnds.length - 1 && c.runEnds[c.run]! <= at) c.run++;
  return c.runs[c.run] ?? NO_RUN;
}

/** The inline content of characters [start, end), cut at style runs and link ranges. */
function inline(text: string, c: Cursor, start: number, end: number): ElementContent[] {
  runAt(c, start);
  while (c.link < c.links.length && c.links[c.link]!.end <= start) c.link++;
  const cuts = [start, end];
  for (let k = c.run; k < c.runEnds.length && c.runEnds[k]! < end; k++) cuts.push(c.runEnds[k]!);
  for (let k = c.link; k < c.links.length && c.links[k]!.start < end; k++)
    cuts.push(c.links[k]!.start, c.links[k]!.end);
  const points =
    cuts.length === 2 ? cuts : [...new Set(cuts.filter((x) => x >= start && x <= end))].sort((a, b) => a - b);
  const out: ElementContent[] = [];
  let anchor: Element | undefined;
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i]!;
    const run = runAt(c, from);
    while (c.link < c.links.length && c.links[c.link]!.end <= from) c.link++;
    const nodes = styledText(text.slice(from, points[i + 1]), run);
    const link = c.links[c.link];
    const href = link && link.start <= from ? link.href : undefined;
    if (!href) {
      anchor = undefined;
      for (const node of nodes) out.push(node);
    } else if (anchor && anchor.properties.href === href) {
      for (const node of nodes) anchor.children.push(node);
    } else {
      anchor = el('a', nodes, { href });
      out.push(anchor);
    }
  }
  return out;
}

/** Paragraphs left to produce for the document (limits.pptParagraphs). */
export interface TextBudget {
  paragraphs: number;
}

function paragraphs(r: ByteReader, group: TextGroup, budget: TextBudget): Paragraph[] {
  const style = group.style ? readTextStyle(r, group.style, group.text.length) : undefined;
  const cursor = cursorFor(group, style?.characters ?? []);
  const out: Paragraph[] = [];
  let start = 0;
  let pIndex = 0;
  let pEnd = style?.paragraphs[0]?.count ?? Number.POSITIVE_INFINITY;
  for (const text of group.text.split('\r')) {
    const end = start + text.length;
    while (start >= pEnd && pIndex + 1 < (style?.paragraphs.length ?? 0))
      pEnd += style!.paragraphs[++pIndex]!.count;
    const props = style?.paragraphs[pIndex];
    if (text.trim() && budget.paragraphs-- > 0) {
      const pp9rt = runAt(cursor, start).pp9rt;
      const numbering = pp9rt === undefined ? undefined : group.numbering[pp9rt];
      const bullet = props?.bullet ?? BULLETED_TYPES.has(group.type);
      out.push({
        content: inline(group.text, cursor, start, end),
        indent: Math.min(props?.indent ?? 0, MAX_LEVEL),
        bullet,
        start: bullet && numbering?.numbered ? numbering.start : undefined,
      });
    }
    start = end + 1;
  }
  return out;
}

export function isTitle(group: TextGroup): boolean {
  return group.type === TEXT_TYPE.title || group.type === TEXT_TYPE.centerTitle;
}

/** A title's text on one line, for a heading. */
export function titleText(group: TextGroup): string {
  return clean(group.text.replace(/[\r\v]+/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

interface OpenList {
  list: Element;
  level: number;
  ordered: boolean;
}

/**
 * Bulleted and numbered paragraphs → nested lists: a deeper level nests in the previous item,
 * and a change between bullets and numbers at one level starts a new list.
 */
function lists(items: Paragraph[]): Element[] {
  const roots: Element[] = [];
  const stack: OpenList[] = [];
  const open = (item: Paragraph): OpenList => {
    const ordered = item.start !== undefined;
    const props = ordered && item.start !== 1 ? { start: item.start } : {};
    const entry = { list: el(ordered ? 'ol' : 'ul', [], props), level: item.indent, ordered };
    const parent = stack[stack.length - 1];
    if (!parent) roots.push(entry.list);
    else {
      let last = parent.list.children[parent.list.children.length - 1] as Element | undefined;
      if (!last) {
        last = el('li', []);
        parent.list.children.push(last);
      }
      last.children.push(entry.list);
    }
    stack.push(entry);
    return entry;
  };
  for (const item of items) {
    while (stack.length && stack[stack.length - 1]!.level > item.indent) stack.pop();
    let top = stack[stack.length - 1];
    if (top && top.level === item.indent && top.ordered !== (item.start !== undefined)) {
      stack.pop();
      top = undefined;
    }
    if (!top || top.level < item.indent) top = open(item);
    top.list.children.push(el('li', item.content));
  }
  return roots;
}

/** A shape's text as paragraphs and lists. */
export function textBlocks(r: ByteReader, group: TextGroup, budget: TextBudget): Element[] {
  const blocks: Element[] = [];
  const items = paragraphs(r, group, budget);
  for (let i = 0; i < items.length; ) {
    if (!items[i]!.bullet) {
      blocks.push(el('p', items[i++]!.content));
      continue;
    }
    const run: Paragraph[] = [];
    while (i < items.length && items[i]!.bullet) run.push(items[i++]!);
    for (const list of lists(run)) blocks.push(list);
  }
  return blocks;
}

/** Text for a table cell: its paragraphs as lines. */
export function cellContent(r: ByteReader, groups: TextGroup[], budget: TextBudget): ElementContent[] {
  const out: ElementContent[] = [];
  for (const group of groups) {
    for (const p of paragraphs(r, group, budget)) {
      if (out.length) out.push(el('br', []));
      for (const node of p.content) out.push(node);
    }
  }
  return out;
}
