import type { Element } from 'hast';
import { toText } from 'hast-util-to-text';
import type { FootnoteDefinition, Image, PhrasingContent, RootContent } from 'mdast';
import { wrap } from './mdast-flow.ts';

/**
 * The mdast of the elements where our Markdown departs from hast-util-to-mdast's (which
 * hast-to-mdast.ts otherwise follows): the model's conventions (document/model.ts: footnotes,
 * math, removed inline images), links without a target, definition lists, `sup`/`sub`, and
 * code languages.
 */

/** Image URL standing for a removed inline (data:) image; the serializer prints the placeholder. */
export const REMOVED_IMAGE_URL = 'quire:base64-image-removed';

export const str = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : '');

type Convert = (parent: Element) => RootContent[];

/** `dl` as flow; `convert` gives an item's converted children. */
export function definitionList(node: Element, convert: Convert): RootContent[] {
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
      out.push(...wrap(convert(item)));
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

/** A link without a target (or a script URL, already dropped) is its text; an empty link goes. */
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

/** The notes of a `section[data-footnotes]`; `convert` gives an item's converted children. */
export function footnoteDefinitions(node: Element, convert: Convert): RootContent[] {
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
        children: wrap(convert(item)) as FootnoteDefinition['children'],
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

/** Zero-width characters (docs sites put one in their heading anchors) show nothing. */
const INVISIBLE = /^[\s\u200b-\u200d\u2060\ufeff]*$/;

function hasVisibleContent(node: RootContent): boolean {
  if (node.type === 'text') return !INVISIBLE.test(node.value);
  if (node.type === 'image' || node.type === 'inlineCode') return true;
  return 'children' in node && (node.children as RootContent[]).some(hasVisibleContent);
}

/** An inline (data:) image loses its bytes when the options say so. */
export function hideInlineImage(image: Image, src: string, options: { removeBase64Images: boolean }): void {
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
export function mathAltText(node: Element): RootContent | undefined {
  const alt = str(node.properties.alttext).trim();
  return alt ? { type: 'inlineCode', value: alt } : undefined;
}
