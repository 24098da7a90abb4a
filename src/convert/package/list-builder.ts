import type { Element, ElementContent } from 'hast';

/** One list paragraph, ready to be placed. */
export interface ListEntry {
  level: number;
  /** Items of one list share a key; a different key at the same level starts a new list. */
  key: string;
  ordered: boolean;
  /** `type` attribute of an ordered list (`a`, `A`, `i`, `I`), when not decimal. */
  type: string | undefined;
  value: number;
  /** Forces a new list at this level (numbering was restarted). */
  restart: boolean;
  content: ElementContent[];
}

interface Open {
  list: Element;
  level: number;
  key: string;
  ordered: boolean;
  item: Element | undefined;
}

/**
 * Turns Word's flat sequence of numbered paragraphs (each with a level) into nested
 * `ol`/`ul` elements. A deeper level opens a list inside the last item; a shallower one
 * closes lists back to it.
 */
export class ListBuilder {
  private stack: Open[] = [];

  get open(): boolean {
    return this.stack.length > 0;
  }

  /** Places an entry; returns the new top-level list when one had to be started. */
  add(entry: ListEntry): Element | undefined {
    const stack = this.stack;
    while (stack.length > 0 && stack[stack.length - 1]!.level > entry.level) stack.pop();
    const top = stack[stack.length - 1];
    if (
      top &&
      top.level === entry.level &&
      (top.key !== entry.key || top.ordered !== entry.ordered || entry.restart)
    ) {
      stack.pop();
    }
    let created: Element | undefined;
    let current = stack[stack.length - 1];
    if (!current || current.level < entry.level) {
      const properties: Element['properties'] = {};
      if (entry.ordered && entry.value !== 1) properties.start = entry.value;
      if (entry.ordered && entry.type) properties.type = entry.type;
      const list: Element = {
        type: 'element',
        tagName: entry.ordered ? 'ol' : 'ul',
        properties,
        children: [],
      };
      if (current) {
        if (!current.item) {
          current.item = { type: 'element', tagName: 'li', properties: {}, children: [] };
          current.list.children.push(current.item);
        }
        current.item.children.push(list);
      } else created = list;
      current = { list, level: entry.level, key: entry.key, ordered: entry.ordered, item: undefined };
      stack.push(current);
    }
    const item: Element = { type: 'element', tagName: 'li', properties: {}, children: entry.content };
    current.list.children.push(item);
    current.item = item;
    return created;
  }

  /** The key of the open unordered list at a level, so loose task paragraphs can join it. */
  bulletKeyAt(level: number): string | undefined {
    const open = this.stack.find((o) => o.level === level);
    return open && !open.ordered ? open.key : undefined;
  }

  /** Adds a block (an indented follow-up paragraph) to the innermost open item. */
  appendToItem(block: ElementContent): boolean {
    const item = this.stack[this.stack.length - 1]?.item;
    if (!item) return false;
    item.children.push(block);
    return true;
  }

  close(): void {
    this.stack = [];
  }
}
