import type { Element, Root, RootContent } from 'hast';

/**
 * schema.org items a page states about itself, from its three syntaxes, as JSON-LD shapes:
 * `{"@type": "Product", "name": …, "offers": {…}}`. JSON-LD blocks are taken as they are (a
 * `@graph` or an array is opened into its items); microdata (`itemscope`/`itemprop`) and RDFa
 * Lite (`typeof`/`property`) are read into the same shape, nested items nested, every value a
 * string (or a list, when a property repeats). Malformed blocks are skipped: a page's bad
 * markup is its own business, not a failed scrape.
 */
export type Item = { '@type'?: string | string[] } & Record<string, unknown>;

/** The text of the nodes under `node`, as written (a script's too, which innerText leaves out). */
function textOf(node: Root | Element): string {
  let out = '';
  for (const child of node.children) {
    if (child.type === 'text') out += child.value;
    else if (child.type === 'element') out += textOf(child);
  }
  return out;
}

function children(node: Root | Element): Element[] {
  return (node.children as RootContent[]).filter((c): c is Element => c.type === 'element');
}

const attr = (el: Element, name: string): string | undefined => {
  const v = el.properties[name];
  if (v === undefined || v === null || v === false) return undefined;
  return Array.isArray(v) ? v.join(' ') : String(v);
};

/** The last path segment of a type URL: "https://schema.org/Product" is "Product". */
const typeName = (url: string) =>
  url
    .replace(/[#/]+$/, '')
    .split(/[/#:]/)
    .pop() ?? url;

function jsonLd(tree: Root): Item[] {
  const items: Item[] = [];
  const open = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(open);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const item = value as Item;
    if (Array.isArray(item['@graph'])) (item['@graph'] as unknown[]).forEach(open);
    if (item['@type']) items.push(item);
  };
  const walk = (node: Root | Element) => {
    for (const el of children(node)) {
      if (el.tagName === 'script' && /ld\+json/i.test(attr(el, 'type') ?? '')) {
        const text = textOf(el)
          .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[)/, '')
          .replace(/(?:-->|\/\/\s*\]\]>)\s*$/, '');
        try {
          open(JSON.parse(text));
        } catch {
          // Not JSON: skipped.
        }
      } else walk(el);
    }
  };
  walk(tree);
  return items;
}

/** A property's value as microdata and RDFa define it: an attribute for some elements, else the text. */
function propertyValue(el: Element): string {
  const content = attr(el, 'content');
  if (content !== undefined) return content;
  switch (el.tagName) {
    case 'a':
    case 'link':
    case 'area':
      return attr(el, 'href') ?? '';
    case 'img':
    case 'audio':
    case 'video':
    case 'source':
    case 'iframe':
    case 'embed':
      return attr(el, 'src') ?? '';
    case 'object':
      return attr(el, 'data') ?? '';
    case 'data':
    case 'meter':
      return attr(el, 'value') ?? '';
    case 'time':
      return attr(el, 'dateTime') ?? textOf(el).trim();
    default:
      return (attr(el, 'resource') ?? textOf(el)).replace(/\s+/g, ' ').trim();
  }
}

interface Syntax {
  /** Whether the element starts an item. */
  scope(el: Element): boolean;
  type(el: Element): string | undefined;
  /** The property names the element gives its item. */
  names(el: Element): string[];
}

const microdata: Syntax = {
  scope: (el) => el.properties.itemScope === true || el.properties.itemScope === '',
  type: (el) => attr(el, 'itemType'),
  names: (el) => (attr(el, 'itemProp') ?? '').split(/\s+/).filter(Boolean),
};

const rdfa: Syntax = {
  scope: (el) => attr(el, 'typeof') !== undefined,
  type: (el) => attr(el, 'typeof'),
  names: (el) =>
    (attr(el, 'property') ?? '')
      .split(/\s+/)
      .filter((n) => n && !n.includes(':') && !/^og|^fb|^twitter/.test(n)),
};

function addValue(item: Item, name: string, value: unknown): void {
  const key = typeName(name);
  const had = item[key];
  item[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
}

/** The item `el` starts: its type and the properties of the elements under it, nested items nested. */
function readItem(el: Element, syntax: Syntax): Item {
  const item: Item = {};
  const type = syntax.type(el);
  if (type) item['@type'] = type.split(/\s+/).map(typeName);
  const collect = (node: Element) => {
    for (const child of children(node)) {
      const names = syntax.names(child);
      const nested = syntax.scope(child);
      for (const name of names) addValue(item, name, nested ? readItem(child, syntax) : propertyValue(child));
      if (!nested) collect(child);
    }
  };
  collect(el);
  return item;
}

function itemsOf(tree: Root, syntax: Syntax): Item[] {
  const items: Item[] = [];
  const walk = (node: Root | Element, inItem: boolean) => {
    for (const el of children(node)) {
      if (syntax.scope(el)) {
        // A nested item is read with its parent; one that is not a property of it stands alone too.
        if (!inItem || syntax.names(el).length === 0) items.push(readItem(el, syntax));
        walk(el, true);
      } else walk(el, inItem);
    }
  };
  walk(tree, false);
  return items;
}

export function structuredItems(tree: Root): Item[] {
  return [...jsonLd(tree), ...itemsOf(tree, microdata), ...itemsOf(tree, rdfa)];
}

/** Whether an item is of `type` (its `@type` names it, as a name or a URL). */
export function isType(item: Item, type: string): boolean {
  const types = Array.isArray(item['@type']) ? item['@type'] : [item['@type']];
  return types.some((t) => typeof t === 'string' && typeName(t) === type);
}

/** A property's text: a string tidied, a number written out, the first of a list, an item's name (or `@value`). */
export function itemText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.replace(/\s+/g, ' ').trim() || undefined;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return itemText(v[0]);
  if (v && typeof v === 'object') return itemText((v as Item).name ?? (v as Item)['@value']);
  return undefined;
}

/** A property that may hold one value or a list of them, as a list. */
export const itemList = (v: unknown): unknown[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
