import type { Element, Root } from 'hast';
import type { Handle } from 'hast-util-to-mdast';
import { defaultHandlers, toMdast } from 'hast-util-to-mdast';
import { toText } from 'hast-util-to-text';
import type {
  FootnoteDefinition,
  Image,
  List,
  ListItem,
  Root as MdastRoot,
  Nodes,
  PhrasingContent,
  RootContent,
} from 'mdast';
import { createTableHandler, type TableOptions } from './table-to-mdast.ts';

/** Image URL standing for a removed inline (data:) image; the serializer prints the placeholder. */
export const REMOVED_IMAGE_URL = 'quire:base64-image-removed';

export interface ToMdastOptions {
  removeBase64Images: boolean;
  nestedTables: TableOptions['nested'];
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : '');

/** Lists are tight: items are not separated by blank lines (the serializer still separates paragraphs). */
const list: Handle = (state, node) => {
  const result = defaultHandlers.ol!(state, node) as List;
  result.spread = false;
  for (const item of result.children) item.spread = false;
  return result;
};

const li: Handle = (state, node) => {
  const result = defaultHandlers.li!(state, node) as ListItem;
  result.spread = false;
  return result;
};

type Convert = (parent: Element) => RootContent[];
type ToFlow = (nodes: RootContent[]) => RootContent[];

/** `dl`: each term as a bold paragraph, followed by its definitions. */
const dl: Handle = (state, node) =>
  definitionList(
    node,
    (item) => state.all(item),
    (nodes) => state.toFlow(nodes),
  );

/** `dl` as flow; `convert` gives an item's converted children. */
export function definitionList(node: Element, convert: Convert, toFlow: ToFlow): RootContent[] {
  const out: RootContent[] = [];
  const items: Element[] = [];
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === 'div') {
      for (const c of child.children) if (c.type === 'element') items.push(c);
    } else items.push(child);
  }
  for (const item of items) {
    if (item.tagName === 'dt') {
      const phrasing = convert(item).filter(isPhrasing);
      if (phrasing.length > 0)
        out.push({ type: 'paragraph', children: [{ type: 'strong', children: phrasing }] });
    } else {
      out.push(...toFlow(convert(item)));
    }
  }
  return out;
}

function isPhrasing(node: RootContent): node is PhrasingContent {
  return (
    node.type === 'text' ||
    node.type === 'emphasis' ||
    node.type === 'strong' ||
    node.type === 'delete' ||
    node.type === 'link' ||
    node.type === 'image' ||
    node.type === 'inlineCode' ||
    node.type === 'break' ||
    node.type === 'html'
  );
}

const LANG = /^(?:language|lang)-(.+)$/;

function languageOf(el: Element): string | undefined {
  for (const c of Array.isArray(el.properties.className) ? el.properties.className : []) {
    const m = LANG.exec(String(c));
    if (m) return m[1];
  }
  return undefined;
}

/** The language of `class="language-x"` (or `lang-x`) on `pre` or a `code` in it. */
export function preLanguage(pre: Element): string | undefined {
  let lang = languageOf(pre);
  if (!lang) {
    for (const child of pre.children) {
      if (child.type === 'element' && child.tagName === 'code') lang = languageOf(child);
      if (lang) break;
    }
  }
  return lang;
}

/** The display equation a `pre` holds, by the model's convention. */
export function displayMath(pre: Element): Element | undefined {
  return pre.children.find((c): c is Element => c.type === 'element' && hasClass(c, 'math-display'));
}

/** `pre` → fenced code, with the language of `class="language-x"` (or `lang-x`) on pre or code. */
const pre: Handle = (state, node) => {
  const math = displayMath(node);
  if (math) return mathNode(state, toText(math), true);
  const result = defaultHandlers.pre!(state, node) as Nodes;
  if (result.type === 'code' && !result.lang) {
    const lang = preLanguage(node);
    if (lang) result.lang = lang;
  }
  return result;
};

/** A link without a target (or a script URL, already dropped) is its text; an empty link goes. */
const a: Handle = (state, node) => {
  if (node.properties.dataFootnoteRef !== undefined) return footnoteReference(node);
  const result = link(node, state.all(node), (href) => state.resolve(href));
  if (result && !Array.isArray(result)) state.patch(node, result);
  return result;
};

export function link(
  node: Element,
  children: RootContent[],
  resolve: (href: string) => string,
): RootContent | RootContent[] | undefined {
  const href = str(node.properties.href).trim();
  if (!href) return children;
  if (!children.some(hasVisibleContent)) return undefined;
  const title = str(node.properties.title).replace(/\s+/g, ' ').trim();
  return { type: 'link', url: resolve(href), title: title || null, children: children as PhrasingContent[] };
}

/** A note's label: the reference's text, else its target without the `#fn-` prefix. */
function noteLabel(text: string, href: string): string {
  const label = text.replace(/\s+/g, ' ').trim() || href.replace(/^#?(?:fn-)?/, '');
  return label.replace(/[[\]]/g, '');
}

export const footnoteReference = (node: Element): RootContent | undefined => {
  const label = noteLabel(toText(node), str(node.properties.href));
  return label ? { type: 'footnoteReference', identifier: label.toLowerCase(), label } : undefined;
};

/** `section[data-footnotes]` → one footnote definition per `li` of its list. */
const section: Handle = (state, node) =>
  node.properties.dataFootnotes === undefined
    ? state.all(node)
    : footnoteDefinitions(
        node,
        (item) => state.all(item),
        (nodes) => state.toFlow(nodes),
      );

/** The notes of a `section[data-footnotes]`; `convert` gives an item's converted children. */
export function footnoteDefinitions(node: Element, convert: Convert, toFlow: ToFlow): RootContent[] {
  const out: RootContent[] = [];
  for (const list of node.children) {
    if (list.type !== 'element' || (list.tagName !== 'ol' && list.tagName !== 'ul')) continue;
    let n = 1;
    for (const item of list.children) {
      if (item.type !== 'element' || item.tagName !== 'li') continue;
      const label = noteLabel('', str(item.properties.id)) || String(n);
      n++;
      out.push({
        type: 'footnoteDefinition',
        identifier: label.toLowerCase(),
        label,
        children: toFlow(convert(item)) as FootnoteDefinition['children'],
      });
    }
  }
  return out;
}

export function hasClass(el: Element, name: string): boolean {
  const classes = el.properties.className;
  return Array.isArray(classes) && classes.includes(name);
}

/**
 * LaTeX goes out verbatim between dollars (Markdown escaping would corrupt it). In a table
 * cell display math becomes inline and `|` is escaped, as the GFM table syntax needs.
 */
export function mathNode(
  state: { readonly inTable: boolean },
  tex: string,
  display: boolean,
): RootContent | undefined {
  const value = tex.trim();
  if (!value) return undefined;
  if (state.inTable) return { type: 'html', value: `$${value.replace(/\|/g, '\\|')}$` };
  return display
    ? { type: 'html', value: `$$${value}$$` }
    : { type: 'html', value: `$${value}$`, data: { hName: 'code' } };
}

const code: Handle = (state, node) =>
  hasClass(node, 'math-inline') ? mathNode(state, toText(node), false) : defaultHandlers.code!(state, node);

/** Zero-width characters (docs sites put one in their heading anchors) show nothing. */
const INVISIBLE = /^[\s\u200b-\u200d\u2060\ufeff]*$/;

export function hasVisibleContent(node: RootContent): boolean {
  if (node.type === 'text') return !INVISIBLE.test(node.value);
  if (node.type === 'image' || node.type === 'inlineCode') return true;
  return 'children' in node && (node.children as RootContent[]).some(hasVisibleContent);
}

/** Form controls show nothing useful once static, except checkboxes (task lists). */
const input: Handle = (state, node) => {
  const type = str(node.properties.type).toLowerCase();
  if (type === 'checkbox' || type === 'radio') return defaultHandlers.input!(state, node);
  return undefined;
};

function createImageHandler(options: ToMdastOptions): Handle {
  return (state, node) => {
    const src = str(node.properties.src).trim();
    if (!src) return undefined;
    const result = defaultHandlers.img!(state, node) as Nodes;
    if (result.type === 'image') hideInlineImage(result, src, options);
    return result;
  };
}

/** An inline (data:) image loses its bytes when the options say so. */
export function hideInlineImage(image: Image, src: string, options: ToMdastOptions): void {
  if (options.removeBase64Images && /^data:/i.test(src)) {
    image.url = REMOVED_IMAGE_URL;
    image.title = null;
  }
}

/**
 * `sup`/`sub` around plain text stay HTML (`x<sup>2</sup>`, `H<sub>2</sub>O`: GFM shows them,
 * and without them the text reads wrong); around anything else (a citation link) only the
 * content is kept.
 */
const script: Handle = (state, node) => scriptContent(node.tagName, state.all(node));

export function scriptContent(tagName: string, children: RootContent[]): RootContent[] {
  if (children.length === 0 || !children.every((c) => c.type === 'text')) return children;
  if (!children.some((c) => c.type === 'text' && c.value.trim() !== '')) return children;
  // `hName` tells the paragraph wrapper that these HTML nodes are inline.
  const data = { hName: tagName };
  return [
    { type: 'html', value: `<${tagName}>`, data },
    ...children,
    { type: 'html', value: `</${tagName}>`, data },
  ];
}

/** MathML: its `alttext` (usually TeX), as inline code. */
export const math = (_state: unknown, node: Element): RootContent | undefined => {
  const alt = str(node.properties.alttext).trim();
  return alt ? { type: 'inlineCode', value: alt } : undefined;
};

export function hastToMdast(tree: Root, options: ToMdastOptions): MdastRoot {
  const result = toMdast(tree, {
    handlers: {
      a,
      code,
      dl,
      img: createImageHandler(options),
      image: createImageHandler(options),
      input,
      li,
      math,
      ol: list,
      pre,
      section,
      sub: script,
      sup: script,
      table: createTableHandler({
        nested: options.nestedTables,
        merged: 'repeat',
        removeBase64Images: options.removeBase64Images,
      }),
      ul: list,
    },
  });
  return result.type === 'root' ? result : { type: 'root', children: [result as RootContent] };
}
