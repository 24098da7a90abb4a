import type { Element, ElementContent } from 'hast';
import { BOLD, type Paragraph } from './inline.ts';

/** Where a list paragraph belongs: which list, how deep, and how it is numbered. */
export interface ListPlace {
  /** Paragraphs of one list share a key; a new key starts a new list. */
  key: string;
  level: number;
  ordered: boolean;
  /** The number of this item, used when a new `ol` has to begin here. */
  number: number;
  /** HTML `ol[type]` for roman and letter numbering. */
  numbering: string | undefined;
}

/** How a paragraph is placed: a heading level (1-6), a list item, a list continuation. */
export interface ParagraphRole {
  heading: number;
  list: ListPlace | undefined;
  /** A list paragraph without its own marker: another paragraph of the previous item. */
  continuation: boolean;
}

interface OpenList {
  el: Element;
  key: string;
  level: number;
  ordered: boolean;
  lastItem: Element | undefined;
}

function element(
  tagName: string,
  children: ElementContent[],
  properties: Element['properties'] = {},
): Element {
  return { type: 'element', tagName, properties, children };
}

/**
 * A sequence of blocks (the body, a note, a table cell): paragraphs, headings, lists nested
 * by level, code blocks from consecutive monospace paragraphs, and finished tables.
 */
export class BlockList {
  readonly blocks: ElementContent[] = [];
  private lists: OpenList[] = [];
  private pre: string[] | undefined;
  private readonly allowCodeBlocks: boolean;

  constructor(allowCodeBlocks: boolean) {
    this.allowCodeBlocks = allowCodeBlocks;
  }

  get isEmpty(): boolean {
    return this.blocks.length === 0;
  }

  addParagraph(para: Paragraph, role: ParagraphRole): void {
    if (role.heading) {
      this.closeAll();
      // Bold is how headings look, not emphasis within them.
      this.blocks.push(element(`h${role.heading}`, para.toHast(BOLD)));
      return;
    }
    if (role.list) {
      this.closePre();
      this.addItem(para.toHast(), role.list);
      return;
    }
    if (role.continuation && this.lists.length > 0) {
      this.addToItem(para.toHast());
      return;
    }
    if (this.allowCodeBlocks && para.allCode) {
      this.lists = [];
      if (!this.pre) {
        this.pre = [];
        this.blocks.push(element('pre', [element('code', [])]));
      }
      this.pre.push(para.plainText());
      return;
    }
    this.closeAll();
    this.blocks.push(element('p', para.toHast()));
  }

  /** A finished table or other block: lists and code blocks end before it. */
  addBlock(node: ElementContent): void {
    this.closeAll();
    this.blocks.push(node);
  }

  finish(): ElementContent[] {
    this.closeAll();
    return this.blocks;
  }

  private closeAll(): void {
    this.lists = [];
    this.closePre();
  }

  private closePre(): void {
    if (!this.pre) return;
    const pre = this.blocks[this.blocks.length - 1] as Element;
    (pre.children[0] as Element).children = [{ type: 'text', value: `${this.pre.join('\n')}\n` }];
    this.pre = undefined;
  }

  private addItem(content: ElementContent[], place: ListPlace): void {
    const lists = this.lists;
    while (lists.length > 0 && lists[lists.length - 1]!.level > place.level) lists.pop();
    let top = lists[lists.length - 1];
    if (top && top.level === place.level && (top.key !== place.key || top.ordered !== place.ordered)) {
      lists.pop();
      top = lists[lists.length - 1];
    }
    if (!top || top.level < place.level) {
      const props: Element['properties'] = {};
      if (place.ordered && place.number !== 1) props.start = place.number;
      if (place.ordered && place.numbering) props.type = place.numbering;
      const el = element(place.ordered ? 'ol' : 'ul', [], props);
      if (top?.lastItem) top.lastItem.children.push(el);
      else this.blocks.push(el);
      top = { el, key: place.key, level: place.level, ordered: place.ordered, lastItem: undefined };
      lists.push(top);
    }
    const item = element('li', content);
    top.el.children.push(item);
    top.lastItem = item;
  }

  /** Another paragraph of the current item: the item's inline content becomes paragraphs. */
  private addToItem(content: ElementContent[]): void {
    const item = this.lists[this.lists.length - 1]!.lastItem;
    if (!item) {
      this.blocks.push(element('p', content));
      return;
    }
    const isBlock = (n: ElementContent): boolean =>
      n.type === 'element' && /^(p|ul|ol|pre|table|h[1-6])$/.test(n.tagName);
    if (item.children.length > 0 && !item.children.every(isBlock)) {
      const firstBlock = item.children.findIndex(isBlock);
      const inline = firstBlock < 0 ? item.children : item.children.slice(0, firstBlock);
      const rest = firstBlock < 0 ? [] : item.children.slice(firstBlock);
      item.children = [element('p', inline), ...rest];
    }
    item.children.push(element('p', content));
  }
}
