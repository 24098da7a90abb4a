import type { Element, ElementContent, RootContent as HastContent, Root } from 'hast';
import { toText } from 'hast-util-to-text';
import type {
  Blockquote,
  Code,
  Image,
  ListItem,
  Root as MdastRoot,
  PhrasingContent,
  RootContent,
} from 'mdast';
import { ConversionError } from '../convert/converter.ts';
import { limits } from '../limits.ts';
import {
  cleanTexts,
  dropSurroundingBreaks,
  holdPhrasing,
  toSpecificContent,
  wrap,
  wrapNeeded,
} from './mdast-flow.ts';
import { type Frame, Whitespace } from './minify-whitespace.ts';
import {
  definitionList,
  displayMath,
  footnoteDefinitions,
  footnoteReference,
  hasClass,
  hideInlineImage,
  link,
  mathAltText,
  mathNode,
  preLanguage,
  scriptContent,
  str,
} from './model-to-mdast.ts';
import { type TableOptions, type TableState, tableToMdast } from './table-to-mdast.ts';

/**
 * Whether inline images lose their bytes, and how the tables GFM cannot hold come out (which
 * differs between web pages and documents).
 */
export type ToMdastOptions = TableOptions;

/**
 * hast → mdast in one walk of the tree, for web pages and documents alike. It gives the mdast
 * of hast-util-to-mdast (with rehype-minify-whitespace before it) and our departures from it
 * (model-to-mdast.ts), without that library's copy of the whole tree and separate whitespace
 * pass: whitespace is collapsed while walking (minify-whitespace.ts), and the library's mdast
 * clean-up rules are in mdast-flow.ts.
 *
 * Depth: the walk and the helpers it calls recurse, a few stack frames per element level, and
 * so does the serializer after it (on the mdast, about as deep as the tree). On Node's default
 * stack that holds near 2000 levels of `div` and 700 nested lists (1400 levels). The trees it
 * gets are far shallower: the HTML converter (pages, EPUB chapters) hoists elements nested
 * deeper than limits.htmlDepth (256), office XML parts are cut at limits.xmlDepth (256; a Word
 * table takes four hast levels for three XML levels), RTF tables nest 64 deep at most and
 * Word 97's 8, list levels stop at 9, and the transforms only remove nodes. A tree deeper than
 * limits.renderDepth is refused before any recursion starts, so none can overflow the stack.
 */
export function hastToMdast(tree: Root, options: ToMdastOptions): MdastRoot {
  checkDepth(tree);
  const converter = new Converter(options);
  let children = converter.children(converter.flow.root(tree.children));
  if (wrapNeeded(children)) children = wrap(children);
  const root: MdastRoot = { type: 'root', children };
  cleanTexts(root);
  return root;
}

/** Throws when elements nest deeper than limits.renderDepth (iteratively, so it cannot overflow). */
function checkDepth(tree: Root): void {
  // The open elements' children and the index of the next child to visit in each.
  const lists: Array<readonly (HastContent | ElementContent)[]> = [tree.children];
  const next = [0];
  while (lists.length > 0) {
    const top = lists.length - 1;
    const node = lists[top]![next[top]!++];
    if (node === undefined) {
      lists.pop();
      next.pop();
    } else if (node.type === 'element' && node.children.length > 0) {
      if (lists.length >= limits.renderDepth)
        throw new ConversionError(
          'RESOURCE_LIMIT',
          `The document nests elements deeper than ${limits.renderDepth} levels (limits.renderDepth)`,
        );
      lists.push(node.children);
      next.push(0);
    }
  }
}

type Out = RootContent[];
/** Converts `el` (whose children `inner` walks) into `out`. */
type Handler = (c: Converter, el: Element, inner: Frame, out: Out) => void;

class Converter implements TableState {
  readonly flow = new Whitespace();
  readonly options: ToMdastOptions;
  inTable = false;
  /** The leading checkbox of the list item being converted: it becomes the item's `checked`. */
  checkbox: Element | undefined;
  /** The frame holding the table being converted, for its parts (`all`). */
  tableFrame: Frame | undefined;
  base: string | undefined;
  baseFound = false;

  constructor(options: ToMdastOptions) {
    this.options = options;
  }

  children(at: Frame): Out {
    const out: Out = [];
    this.into(at, out);
    return out;
  }

  into(at: Frame, out: Out): void {
    const nodes = at.nodes;
    for (at.index = 0; at.index < nodes.length; at.index++) this.one(nodes[at.index]!, at, out);
  }

  one(node: HastContent | ElementContent, at: Frame, out: Out): void {
    switch (node.type) {
      case 'text': {
        const value = this.flow.text(node.value, at);
        if (value !== undefined) out.push({ type: 'text', value });
        return;
      }
      case 'element':
        this.element(node, at, out);
        return;
      case 'comment':
        out.push({ type: 'html', value: `<!--${node.value}-->` });
        return;
      case 'doctype':
        return;
      default:
        this.flow.other();
    }
  }

  element(el: Element, at: Frame, out: Out): void {
    const inner = this.flow.enter(el, at);
    if (el === this.checkbox || el.properties.dataMdast === 'ignore') this.flow.walk(inner);
    else (HANDLERS.get(el.tagName) ?? transparent)(this, el, inner, out);
    this.flow.leave(el, inner);
  }

  /** `el`'s children as whitespace-collapsed hast, for the handlers that read text. */
  copy(el: Element, inner: Frame): Element {
    return { ...el, children: this.flow.copy(inner) };
  }

  resolve(url: string): string {
    return this.base ? new URL(url, this.base).href : url;
  }

  // TableState: the table handler converts cells and captions (all blocks) in its own order.
  all(parent: Element): Out {
    return this.item(parent, this.tableFrame!);
  }

  minified(table: Element): Element {
    const inner = this.flow.enter(table, this.tableFrame!);
    const copy = this.copy(table, inner);
    this.flow.leave(table, inner);
    return copy;
  }

  /** An item's converted children, with the item entered and left as an element. */
  item(el: Element, at: Frame): Out {
    const inner = this.flow.enter(el, at);
    const out = this.children(inner);
    this.flow.leave(el, inner);
    return out;
  }
}

function push(out: Out, nodes: readonly RootContent[]): void {
  for (const node of nodes) out.push(node);
}

/** collapse-white-space with HTML whitespace, trimmed (hast-util-to-mdast's attribute clean-up). */
function collapse(value: unknown): string {
  return String(value || '').replace(/[\t\n\v\f\r ]+/g, (run, index: number, all: string) =>
    index === 0 || index + run.length === all.length ? '' : ' ',
  );
}

const transparent: Handler = (c, _el, inner, out) => c.into(inner, out);
const flow: Handler = (c, _el, inner, out) => push(out, wrap(c.children(inner)));
/** Content that shows nothing; inside a line its text still counts for the whitespace. */
const ignore: Handler = (c, _el, inner) => c.flow.walk(inner);

const paragraph: Handler = (c, _el, inner, out) => {
  const all = c.children(inner);
  // A paragraph holding a block (a table in a quirks-mode `<p>`) is split around it.
  if (wrapNeeded(all)) return push(out, wrap(all));
  const children = dropSurroundingBreaks(all);
  if (children.length > 0) out.push({ type: 'paragraph', children: children as PhrasingContent[] });
};

const heading: Handler = (c, el, inner, out) => {
  const depth = (Number(el.tagName.charAt(1)) || 1) as 1 | 2 | 3 | 4 | 5 | 6;
  const all = c.children(inner);
  const hold = (run: RootContent[]): RootContent => ({
    type: 'heading',
    depth,
    children: dropSurroundingBreaks(run) as PhrasingContent[],
  });
  // A heading holding blocks (`<h3><span><h3>…`, a list) is split around them.
  if (wrapNeeded(all)) push(out, holdPhrasing(all, hold));
  else out.push(hold(all));
};

function wrapper(type: 'emphasis' | 'strong' | 'delete'): Handler {
  return (c, _el, inner, out) => out.push({ type, children: c.children(inner) as PhrasingContent[] });
}

const inlineCode: Handler = (c, el, inner, out) => {
  out.push({ type: 'inlineCode', value: toText(c.copy(el, inner)) });
};

const code: Handler = (c, el, inner, out) => {
  if (!hasClass(el, 'math-inline')) return inlineCode(c, el, inner, out);
  const node = mathNode(c, toText(c.copy(el, inner)), false);
  if (node) out.push(node);
};

/** `pre`, `listing`, `xmp`, `plaintext`: a code block (a `pre` can hold display math instead). */
const codeBlock: Handler = (c, el, _inner, out) => {
  const math = el.tagName === 'pre' ? displayMath(el) : undefined;
  if (math) {
    const node = mathNode(c, toText(math), true);
    if (node) out.push(node);
    return;
  }
  const result: Code = { type: 'code', lang: null, meta: null, value: toText(el).replace(/[\r\n]+$/, '') };
  if (el.tagName === 'pre') result.lang = codeClassLanguage(el) || preLanguage(el) || null;
  out.push(result);
};

/** hast-util-to-mdast's language: `language-x` on the first `code` child with classes. */
function codeClassLanguage(pre: Element): string | undefined {
  for (const child of pre.children) {
    if (child.type !== 'element' || child.tagName !== 'code' || !Array.isArray(child.properties.className))
      continue;
    const found = child.properties.className.find((name) => String(name).startsWith('language-'));
    return found === undefined ? undefined : String(found).slice('language-'.length);
  }
  return undefined;
}

const a: Handler = (c, el, inner, out) => {
  if (el.properties.dataFootnoteRef !== undefined) {
    const node = footnoteReference(c.copy(el, inner));
    if (node) out.push(node);
    return;
  }
  const result = link(el, c.children(inner), (href) => c.resolve(href));
  if (Array.isArray(result)) push(out, result);
  else if (result) out.push(result);
};

const img: Handler = (c, el, _inner, out) => {
  const src = str(el.properties.src).trim();
  if (!src) return;
  const image: Image = {
    type: 'image',
    // An inline image about to lose its bytes is not worth parsing as a URL (megabytes of base64).
    url: c.options.removeBase64Images && /^data:/i.test(src) ? '' : c.resolve(String(el.properties.src)),
    title: collapse(el.properties.title) || null,
    alt: collapse(el.properties.alt),
  };
  hideInlineImage(image, src, c.options);
  out.push(image);
};

/** Checkboxes and radio buttons (task lists); other form fields show nothing once static. */
const input: Handler = (_c, el, _inner, out) => {
  if (!isToggle(el) || el.properties.disabled) return;
  out.push({ type: 'text', value: el.properties.checked ? '[x]' : '[ ]' });
};

/** A checkbox or radio button (`type` is case-insensitive, as in HTML). */
function isToggle(el: Element): boolean {
  const type = str(el.properties.type).toLowerCase();
  return type === 'checkbox' || type === 'radio';
}

/** A list item's leading checkbox (directly, or first in its first paragraph). */
function leadingCheckbox(el: Element): Element | undefined {
  const head = el.children.find((child) => child.type !== 'text' || !/^[ \t\n\f\r]*$/.test(child.value));
  if (head?.type !== 'element') return undefined;
  if (head.tagName === 'input') return isToggle(head) ? head : undefined;
  return head.tagName === 'p' ? leadingCheckbox(head) : undefined;
}

function listItem(tight: boolean): Handler {
  return (c, el, inner, out) => {
    const checkbox = leadingCheckbox(el);
    const outer = c.checkbox;
    c.checkbox = checkbox;
    const children = wrap(c.children(inner));
    c.checkbox = outer;
    const item: ListItem = {
      type: 'listItem',
      spread: tight ? false : spreadOut(el),
      checked: checkbox ? Boolean(checkbox.properties.checked) : null,
      children: children as ListItem['children'],
    };
    out.push(item);
  };
}

/** hast-util-phrasing's elements (what does not end a line inside a list item). */
const HAST_PHRASING =
  /^(?:a|abbr|area|b|bdi|bdo|br|button|cite|code|data|datalist|del|dfn|em|i|input|ins|kbd|keygen|label|map|mark|meter|noscript|output|progress|q|ruby|s|samp|script|select|small|span|strong|sub|sup|template|textarea|time|u|var|wbr|audio|canvas|embed|iframe|img|math|object|picture|svg|video)$/;

/** Whether an item (`dt`, `dd` outside a `dl`) holds a paragraph or more than one block. */
function spreadOut(el: Element): boolean {
  let seenFlow = false;
  for (const child of el.children) {
    if (child.type !== 'element' || HAST_PHRASING.test(child.tagName)) continue;
    if (child.tagName === 'p' || seenFlow || spreadOut(child)) return true;
    seenFlow = true;
  }
  return false;
}

function list(tight: boolean): Handler {
  return (c, el, inner, out) => {
    const items = toSpecificContent<ListItem>(c.children(inner), 'listItem', () => ({
      type: 'listItem',
      spread: false,
      checked: null,
      children: [],
    }));
    const ordered = el.tagName === 'ol';
    let start: number | null = null;
    if (ordered) {
      start = Number.parseInt(String(el.properties.start), 10);
      if (Number.isNaN(start)) start = 1;
    }
    if (tight) for (const item of items) item.spread = false;
    const spread = !tight && items.length > 1 && items.some((item) => item.spread);
    out.push({ type: 'list', ordered, start, spread, children: items });
  };
}

const dl: Handler = (c, el, inner, out) => {
  push(
    out,
    definitionList(el, (item) => c.item(item, inner)),
  );
};

const section: Handler = (c, el, inner, out) => {
  if (el.properties.dataFootnotes === undefined) return c.into(inner, out);
  push(
    out,
    footnoteDefinitions(el, (item) => c.item(item, inner)),
  );
};

const table: Handler = (c, el, inner, out) => {
  const outer = c.tableFrame;
  c.tableFrame = inner.parent;
  const result = tableToMdast(c, el, c.options);
  c.tableFrame = outer;
  if (Array.isArray(result)) push(out, result);
  else if (result) out.push(result);
};

/**
 * A row outside its table: the table handler reads its own rows, so only rows that main
 * content kept without their table come here. Like a layout table's row, its cells read on
 * as one line, a space apart, never glued and never a stray GFM row.
 */
const strayRow: Handler = (c, _el, inner, out) => {
  const nodes: Out = [];
  for (inner.index = 0; inner.index < inner.nodes.length; inner.index++) {
    const node = inner.nodes[inner.index]!;
    if (node.type === 'element' && (node.tagName === 'td' || node.tagName === 'th')) {
      if (nodes.length > 0) nodes.push({ type: 'text', value: ' ' });
      push(nodes, c.item(node, inner));
    } else c.one(node, inner, nodes);
  }
  push(out, wrap(nodes));
};

const script: Handler = (c, el, inner, out) => push(out, scriptContent(el.tagName, c.children(inner)));

const mathMl: Handler = (_c, el, _inner, out) => {
  const node = mathAltText(el);
  if (node) out.push(node);
};

/** `q` → its content in straight double quotes. */
const quote: Handler = (c, _el, inner, out) => {
  const contents = c.children(inner);
  const head = contents[0];
  const tail = contents[contents.length - 1];
  if (head?.type === 'text') head.value = `"${head.value}`;
  else contents.unshift({ type: 'text', value: '"' });
  if (tail?.type === 'text') tail.value += '"';
  else contents.push({ type: 'text', value: '"' });
  push(out, contents);
};

const iframe: Handler = (c, el, _inner, out) => {
  const src = String(el.properties.src || '');
  const title = collapse(el.properties.title);
  if (src && title)
    out.push({ type: 'link', title: null, url: c.resolve(src), children: [{ type: 'text', value: title }] });
};

const base: Handler = (c, el) => {
  if (c.baseFound) return;
  c.base = String(el.properties.href || '') || undefined;
  c.baseFound = true;
};

/** `audio`/`video`: a link to the media (through the poster image), unless the fallback content links. */
const media: Handler = (c, el, inner, out) => {
  let nodes = c.children(inner);
  if (nodes.some(holdsLink) || wrapNeeded(nodes)) return push(out, nodes);
  let source = String(el.properties.src || '');
  for (const child of el.children) {
    if (source) break;
    if (child.type === 'element' && child.tagName === 'source') source = String(child.properties.src || '');
  }
  const poster = el.tagName === 'video' ? String(el.properties.poster || '') : '';
  if (poster)
    nodes = [{ type: 'image', title: null, url: c.resolve(poster), alt: nodes.map(plainText).join('') }];
  out.push({
    type: 'link',
    title: collapse(el.properties.title) || null,
    url: c.resolve(source),
    children: nodes as PhrasingContent[],
  });
};

function holdsLink(node: RootContent): boolean {
  return node.type === 'link' || ('children' in node && (node.children as RootContent[]).some(holdsLink));
}

/** mdast-util-to-string: the text of a node, image alts included. */
function plainText(node: RootContent): string {
  if ('value' in node) return node.value;
  if (node.type === 'image') return node.alt ?? '';
  return 'children' in node ? (node.children as RootContent[]).map(plainText).join('') : '';
}

/** `select` → its selected options, as `label (value)`. */
const select: Handler = (_c, el, _inner, out) => {
  const options = optionsOf(el);
  let chosen = options.filter((option) => option.properties.selected);
  if (!el.properties.multiple) {
    chosen = chosen.slice(-1);
    if (chosen.length === 0 && !(Number.parseInt(String(el.properties.size), 10) > 1))
      chosen = options.slice(0, 1);
  }
  const texts = chosen.map((option) => {
    const content = collapse(toText(option));
    const label = content || collapse(option.properties.label);
    const value = collapse(option.properties.value) || content;
    return label === value || !label ? value : `${label} (${value})`;
  });
  if (texts.length > 0) out.push({ type: 'text', value: texts.join(', ') });
};

function optionsOf(el: Element): Element[] {
  const out: Element[] = [];
  for (const child of el.children) {
    if (child.type !== 'element') continue;
    out.push(...optionsOf(child));
    if (child.tagName === 'option' && !child.properties.disabled) out.push(child);
  }
  return out;
}

/** `textarea` → its lines, as breaks (a blank line as two). */
const textarea: Handler = (_c, el, _inner, out) => {
  let started = false;
  let blank = false;
  for (const raw of toText(el).split(/\r\n|\r|\n/)) {
    const line = collapse(raw);
    if (!line) {
      blank = true;
      continue;
    }
    if (started) {
      out.push({ type: 'break' });
      if (blank) out.push({ type: 'break' });
    }
    out.push({ type: 'text', value: line });
    started = true;
    blank = false;
  }
};

const singleNode =
  (build: () => RootContent): Handler =>
  (_c, _el, _inner, out) =>
    out.push(build());

const HANDLERS = new Map<string, Handler>();
for (const tag of [
  'applet',
  'area',
  'basefont',
  'bgsound',
  'caption',
  'col',
  'colgroup',
  'command',
  'content',
  'datalist',
  'dialog',
  'element',
  'embed',
  'frame',
  'frameset',
  'isindex',
  'keygen',
  'link',
  'menu',
  'menuitem',
  'meta',
  'nextid',
  'noembed',
  'noframes',
  'optgroup',
  'option',
  'param',
  'script',
  'shadow',
  'source',
  'spacer',
  'style',
  'svg',
  'template',
  'title',
  'track',
])
  HANDLERS.set(tag, ignore);
for (const tag of [
  'address',
  'article',
  'aside',
  'body',
  'center',
  'div',
  'fieldset',
  'figcaption',
  'figure',
  'form',
  'footer',
  'header',
  'hgroup',
  'html',
  'legend',
  'main',
  'multicol',
  'nav',
  'picture',
])
  HANDLERS.set(tag, flow);
for (const tag of ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']) HANDLERS.set(tag, heading);
for (const tag of ['kbd', 'samp', 'tt', 'var']) HANDLERS.set(tag, inlineCode);
for (const tag of ['pre', 'listing', 'plaintext', 'xmp']) HANDLERS.set(tag, codeBlock);
for (const [tags, handler] of [
  [['b', 'strong'], wrapper('strong')],
  [['em', 'i', 'mark', 'u'], wrapper('emphasis')],
  [['del', 's', 'strike'], wrapper('delete')],
  [['p', 'summary'], paragraph],
  [['ol', 'ul'], list(true)],
  [['dir'], list(false)],
  [['li'], listItem(true)],
  [['dt', 'dd'], listItem(false)],
  [['img', 'image'], img],
  [['sub', 'sup'], script],
  [['audio', 'video'], media],
] as const)
  for (const tag of tags) HANDLERS.set(tag, handler);
HANDLERS.set('a', a);
HANDLERS.set('base', base);
HANDLERS.set('blockquote', (c, _el, inner, out) =>
  out.push({ type: 'blockquote', children: wrap(c.children(inner)) as Blockquote['children'] }),
);
HANDLERS.set(
  'br',
  singleNode(() => ({ type: 'break' })),
);
HANDLERS.set('code', code);
HANDLERS.set('dl', dl);
HANDLERS.set(
  'hr',
  singleNode(() => ({ type: 'thematicBreak' })),
);
HANDLERS.set('iframe', iframe);
HANDLERS.set('input', input);
HANDLERS.set('math', mathMl);
HANDLERS.set('q', quote);
HANDLERS.set('section', section);
HANDLERS.set('select', select);
HANDLERS.set('textarea', textarea);
HANDLERS.set('table', table);
// Cells outside a row (kept by main content without their table) are blocks of their own.
HANDLERS.set('td', flow);
HANDLERS.set('th', flow);
HANDLERS.set('tr', strayRow);
HANDLERS.set(
  'wbr',
  singleNode(() => ({ type: 'text', value: '\u200B' })),
);
