import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { type ListDefinitions, NFC_BULLET, NFC_NONE } from './lists.ts';
import type { Paragraph } from './story-reader.ts';
import { layoutRows, type TableRow } from './table-grid.ts';

/**
 * Paragraphs → block elements: runs of table paragraphs become tables (cell marks end cells,
 * row-end paragraphs end rows; nested tables by their depth), heading styles become h1-h6,
 * list paragraphs become nested ul/ol, and the rest become p.
 */
export interface BlockContext {
  headingLevel(istd: number): number | undefined;
  lists: ListDefinitions;
  /** Numbers given so far, per list (lsid) and level, so a resumed list keeps counting. */
  counters: Map<number, number[]>;
}

function hasContent(nodes: readonly ElementContent[]): boolean {
  return nodes.some((n) =>
    n.type === 'text'
      ? n.value.trim() !== ''
      : n.type === 'element' && n.tagName !== 'br' && hasContent(n.children),
  );
}

interface ListItemInfo {
  lsid: number;
  level: number;
  ordered: boolean;
  number: number;
}

function listItem(p: Paragraph, ctx: BlockContext): ListItemInfo | undefined {
  if (p.props.ilfo <= 0) return undefined;
  const list = ctx.lists.lookup(p.props.ilfo);
  if (!list) return undefined;
  const level = p.props.ilvl;
  const def = list.levels[Math.min(level, list.levels.length - 1)];
  if (!def || def.nfc === NFC_NONE) return undefined;
  let counts = ctx.counters.get(list.lsid);
  if (!counts) {
    counts = [];
    ctx.counters.set(list.lsid, counts);
  }
  const number = counts[level] === undefined ? def.start : counts[level] + 1;
  counts[level] = number;
  counts.length = level + 1;
  return { lsid: list.lsid, level, ordered: def.nfc !== NFC_BULLET, number };
}

interface OpenList {
  list: Element;
  level: number;
  ordered: boolean;
  lastItem: Element | undefined;
}

/** Consecutive list paragraphs → nested lists, a deeper level nesting in the last item. */
function buildList(items: { info: ListItemInfo; content: ElementContent[] }[]): Element[] {
  const roots: Element[] = [];
  const stack: OpenList[] = [];
  const open = (info: ListItemInfo): OpenList => {
    const list = info.ordered ? h('ol', info.number !== 1 ? { start: info.number } : {}) : h('ul');
    const parent = stack[stack.length - 1];
    if (!parent) roots.push(list);
    else {
      if (!parent.lastItem) {
        parent.lastItem = h('li');
        parent.list.children.push(parent.lastItem);
      }
      parent.lastItem.children.push(list);
    }
    const entry = { list, level: info.level, ordered: info.ordered, lastItem: undefined };
    stack.push(entry);
    return entry;
  };
  for (const { info, content } of items) {
    while (stack.length && stack[stack.length - 1]!.level > info.level) stack.pop();
    let top = stack[stack.length - 1];
    if (top && top.level === info.level && top.ordered !== info.ordered) {
      stack.pop();
      top = undefined;
    }
    if (!top || top.level < info.level) top = open(info);
    const item = h('li', content);
    top.list.children.push(item);
    top.lastItem = item;
  }
  return roots;
}

function cell(paragraphs: Paragraph[], ctx: BlockContext, depth: number): Element {
  const only = paragraphs.length === 1 ? paragraphs[0] : undefined;
  if (
    only &&
    only.props.depth <= depth &&
    ctx.headingLevel(only.props.istd) === undefined &&
    only.props.ilfo <= 0
  ) {
    return h('td', only.content);
  }
  return h('td', buildBlocks(paragraphs, ctx, depth));
}

/** The table at nesting `depth` starting at paragraph `from`; returns it and the next index. */
function buildTable(
  paragraphs: Paragraph[],
  from: number,
  ctx: BlockContext,
  depth: number,
): [Element, number] {
  const rows: TableRow[] = [];
  let row: Element[] = [];
  let current: Paragraph[] = [];
  let i = from;
  for (; i < paragraphs.length; i++) {
    const p = paragraphs[i]!;
    if (p.props.depth < depth) break;
    if (p.props.depth > depth) {
      current.push(p);
      continue;
    }
    const rowEnd = depth === 1 ? p.props.rowEnd : p.props.innerRowEnd;
    if (rowEnd) {
      if (current.length) row.push(cell(current, ctx, depth));
      rows.push({ cells: row, defs: p.props.cells });
      row = [];
      current = [];
      continue;
    }
    current.push(p);
    if (depth === 1 ? p.cellMark : p.props.innerCellEnd) {
      row.push(cell(current, ctx, depth));
      current = [];
    }
  }
  if (current.length) row.push(cell(current, ctx, depth));
  if (row.length) rows.push({ cells: row, defs: undefined });
  const trs = layoutRows(rows).map((cells) => h('tr', cells));
  return [h('table', [h('tbody', trs)]), i];
}

export function buildBlocks(paragraphs: Paragraph[], ctx: BlockContext, depth = 0): ElementContent[] {
  const blocks: ElementContent[] = [];
  let items: { info: ListItemInfo; content: ElementContent[] }[] = [];
  const flushList = (): void => {
    if (items.length) blocks.push(...buildList(items));
    items = [];
  };
  for (let i = 0; i < paragraphs.length; ) {
    const p = paragraphs[i]!;
    if (p.props.depth > depth) {
      flushList();
      const [table, next] = buildTable(paragraphs, i, ctx, depth + 1);
      blocks.push(table);
      i = next;
      continue;
    }
    i++;
    if (!hasContent(p.content)) continue;
    const level = ctx.headingLevel(p.props.istd);
    const info = level === undefined ? listItem(p, ctx) : undefined;
    if (info) {
      items.push({ info, content: p.content });
      continue;
    }
    flushList();
    blocks.push(level === undefined ? h('p', p.content) : h(`h${Math.min(level, 6)}`, p.content));
  }
  flushList();
  return blocks;
}
