import type { Element, ElementContent } from 'hast';
import { append, el } from '../odf/hast.ts';
import type { OdfStyles } from '../odf/styles.ts';
import { child, type XmlElement } from '../package/xml.ts';
import type { Context } from './context.ts';
import type { ListNumbering } from './numbering.ts';

/**
 * `text:list` → `ul`/`ol`. Ordered or not comes from the list style's level (the list's own
 * style name, the enclosing list's, or its first paragraph's); numbering from item start
 * values, continuation (see ListNumbering) and the level style's start value.
 */

export interface ListDeps {
  styles: OdfStyles;
  numbering: ListNumbering;
  /** Converts an item's content. */
  blocks(container: XmlElement, ctx: Context): ElementContent[];
}

export function isList(node: ElementContent | undefined): node is Element {
  return node?.type === 'element' && (node.tagName === 'ul' || node.tagName === 'ol');
}

/** Appends lists to an item, joining one to a list of the same kind that ends the item. */
function appendLists(item: Element, lists: ElementContent[]): void {
  for (const list of lists) {
    const last = item.children[item.children.length - 1];
    if (
      list.type === 'element' &&
      last?.type === 'element' &&
      last.tagName === list.tagName &&
      list.properties.start === undefined
    ) {
      append(last.children, list.children);
    } else item.children.push(list);
  }
}

/**
 * Lists that follow each other with nothing between display as one list when they continue
 * (some producers write every item as its own list, continuing the numbering): the first of
 * `blocks` is moved into `previous` when it is the same kind and, if numbered, numbers on.
 */
export function joinContinuation(previous: Element, blocks: ElementContent[]): void {
  const first = blocks[0];
  if (!isList(first) || first.tagName !== previous.tagName) return;
  if (first.tagName === 'ol') {
    const start = (list: Element): number => Number(list.properties.start ?? 1);
    if (start(first) !== start(previous) + previous.children.length) return;
    if (first.properties.type !== previous.properties.type) return;
  }
  append(previous.children, first.children);
  blocks.shift();
}

/** A list without a style name takes it from its first paragraph's style. */
function paragraphListStyle(list: XmlElement, styles: OdfStyles): string | undefined {
  const item = child(list, 'text:list-item');
  const p = item && (child(item, 'text:p') ?? child(item, 'text:h'));
  return p ? styles.resolve('paragraph', p.attrs['text:style-name'])?.listStyleName : undefined;
}

/** An item whose content is one paragraph (and sublists) keeps the paragraph's content inline. */
function listItem(blocks: ElementContent[]): Element {
  const first = blocks[0];
  const rest = blocks.slice(1);
  if (first?.type === 'element' && first.tagName === 'p' && rest.every(isList)) {
    return el('li', {}, first.children.concat(rest));
  }
  return el('li', {}, blocks);
}

export function convertList(node: XmlElement, ctx: Context, deps: ListDeps): ElementContent[] {
  const level = ctx.listLevel + 1;
  const styleName = node.attrs['text:style-name'] ?? ctx.listStyle ?? paragraphListStyle(node, deps.styles);
  const items = node.children.filter(
    (c): c is XmlElement =>
      typeof c !== 'string' && (c.name === 'text:list-item' || c.name === 'text:list-header'),
  );
  const inner: Context = { flow: false, listLevel: level, listStyle: styleName };
  // A list of headings is how outline numbering is sometimes written: keep the headings.
  if (items.some((item) => child(item, 'text:h'))) return items.flatMap((item) => deps.blocks(item, inner));

  const levelStyle = deps.styles.list(styleName)?.get(Math.min(level, 10));
  const ordered = levelStyle?.ordered ?? false;
  const lists: Element[] = [];
  let current: Element | undefined;
  let number = 0;
  for (const item of items) {
    const blocks = deps.blocks(item, inner);
    const previous = current?.children[current.children.length - 1];
    // An item holding only a deeper list continues the previous item, as it displays.
    if (blocks.length > 0 && blocks.every(isList) && previous?.type === 'element') {
      appendLists(previous, blocks);
      continue;
    }
    if (blocks.length === 0) continue;
    const restart = Number.parseInt(item.attrs['text:start-value'] ?? '', 10);
    if (!current || (ordered && restart >= 0 && current.children.length > 0)) {
      current = el(ordered ? 'ol' : 'ul', {}, []);
      if (ordered) {
        const styleStart = levelStyle?.start ?? 1;
        number =
          restart >= 0
            ? restart
            : level === 1
              ? deps.numbering.start(node, styleName, styleStart)
              : styleStart;
        if (number !== 1) current.properties.start = number;
        if (levelStyle && /^[aAiI]$/.test(levelStyle.format)) current.properties.type = levelStyle.format;
      }
      lists.push(current);
    }
    current.children.push(listItem(blocks));
    if (item.name === 'text:list-item') number++;
  }
  if (ordered && level === 1) deps.numbering.finish(node, styleName, number);
  return lists;
}
