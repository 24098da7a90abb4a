import type { DefaultTreeAdapterTypes } from 'parse5';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import type { PageHead } from './metadata.ts';

type P5Node = DefaultTreeAdapterTypes.Node;
type P5Parent = DefaultTreeAdapterTypes.ParentNode;
type P5Child = DefaultTreeAdapterTypes.ChildNode;
type P5Element = DefaultTreeAdapterTypes.Element;
type P5Document = DefaultTreeAdapterTypes.Document;
type P5Text = DefaultTreeAdapterTypes.TextNode;

const HTML_NS = 'http://www.w3.org/1999/xhtml';

/**
 * Elements that never reach the body tree: upstream always removes head, meta, noscript, style
 * and script; templates and comments are inert; title, link and base only matter as metadata.
 */
const DROPPED = new Set(['head', 'script', 'style', 'noscript', 'template', 'title', 'meta', 'link', 'base']);

function isElement(node: P5Node): node is P5Element {
  return 'tagName' in node;
}

function attributes(el: P5Element): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of el.attrs) if (!(a.name in out)) out[a.name] = a.value;
  return out;
}

function textOf(el: P5Element): string {
  let text = '';
  for (const child of el.childNodes)
    if (child.nodeName === '#text') text += (child as { value: string }).value;
  return text;
}

function collectHead(el: P5Element, head: PageHead): void {
  switch (el.tagName) {
    case 'html':
      if (head.lang === undefined) head.lang = el.attrs.find((a) => a.name === 'lang')?.value;
      break;
    case 'title':
      if (head.title === undefined) head.title = textOf(el);
      break;
    case 'base':
      if (head.baseHref === undefined) head.baseHref = el.attrs.find((a) => a.name === 'href')?.value;
      break;
    case 'meta':
      head.metas.push(attributes(el));
      break;
    case 'link':
      head.links.push(attributes(el));
      break;
  }
}

/** A rough count of start tags, to refuse an element bomb before building its tree. */
export function countStartTags(html: string): number {
  let count = 0;
  let at = html.indexOf('<');
  while (at !== -1) {
    const c = html.charCodeAt(at + 1) | 0x20;
    if (c >= 0x61 && c <= 0x7a) count++;
    at = html.indexOf('<', at + 1);
  }
  return count;
}

function tooManyElements(): ConversionError {
  return new ConversionError(
    'RESOURCE_LIMIT',
    `The HTML document has more than ${limits.htmlElements} elements, which is more than Quire converts.`,
  );
}

interface Frame {
  node: P5Parent;
  depth: number;
  /** False inside a dropped element: walked for metadata only, left untouched. */
  keep: boolean;
}

/**
 * Walks a parsed page once, without recursion: gathers the head's metadata, drops comments and
 * the elements in `DROPPED`, flattens elements nested deeper than `limits.htmlDepth` (their
 * text is hoisted to that depth, so recursive tree utilities downstream stay within the stack),
 * and refuses a page with more than `limits.htmlElements` elements.
 *
 * Returns the element holding the page's content (`body`, else `html`), or undefined for an
 * empty document.
 */
export function preparePage(doc: P5Document, head: PageHead): P5Element | undefined {
  let elements = 0;
  const stack: Frame[] = [{ node: doc, depth: 0, keep: true }];
  while (stack.length > 0) {
    const { node, depth, keep } = stack.pop()!;
    if (isElement(node) && node.namespaceURI === HTML_NS) collectHead(node, head);
    if (keep && depth >= limits.htmlDepth) {
      elements += flatten(node as P5Element);
      if (elements > limits.htmlElements) throw tooManyElements();
      continue;
    }
    const children = node.childNodes;
    const kept: P5Child[] | undefined = keep ? [] : undefined;
    const frames: Frame[] = [];
    for (const child of children) {
      if (child.nodeName === '#comment') continue;
      if (isElement(child)) {
        if (++elements > limits.htmlElements) throw tooManyElements();
        const html = child.namespaceURI === HTML_NS;
        if (html && child.tagName === 'template') continue;
        const dropped = html && DROPPED.has(child.tagName);
        frames.push({ node: child, depth: depth + 1, keep: keep && !dropped });
        if (kept && !dropped) kept.push(child);
      } else if (kept) {
        kept.push(child);
      }
    }
    if (kept) node.childNodes = kept;
    for (let i = frames.length - 1; i >= 0; i--) stack.push(frames[i]!);
  }

  const html = doc.childNodes.find((n): n is P5Element => isElement(n) && n.tagName === 'html');
  if (!html) return undefined;
  return (
    html.childNodes.find(
      (n): n is P5Element => isElement(n) && (n.tagName === 'body' || n.tagName === 'frameset'),
    ) ?? html
  );
}

/**
 * Replaces the descendants of `el` by its leaves (text and empty elements such as `img` and
 * `br`), in document order, with a space where an element ended so that words stay apart,
 * adjacent text joined into one node.
 * Returns the number of elements seen.
 */
function flatten(el: P5Element): number {
  let elements = 0;
  const out: P5Child[] = [];
  const work: Array<P5Child | typeof SEPARATOR> = [];
  // Text is gathered into as few nodes as possible: thousands of adjacent text nodes would
  // cost the whitespace handling downstream quadratic time.
  const addText = (value: string) => {
    const last = out[out.length - 1];
    if (last && last.nodeName === '#text') {
      const text = last as P5Text;
      if (value === ' ' && /\s$/.test(text.value)) return;
      text.value += value;
    } else {
      out.push({ nodeName: '#text', value, parentNode: el });
    }
  };
  for (let i = el.childNodes.length - 1; i >= 0; i--) work.push(el.childNodes[i]!);
  while (work.length > 0) {
    const node = work.pop()!;
    if (node === SEPARATOR) {
      addText(' ');
      continue;
    }
    if (node.nodeName === '#comment') continue;
    if (node.nodeName === '#text') {
      addText((node as P5Text).value);
      continue;
    }
    if (!isElement(node)) continue;
    elements++;
    if (node.namespaceURI === HTML_NS && DROPPED.has(node.tagName)) continue;
    if (node.childNodes.length === 0) {
      node.parentNode = el;
      out.push(node);
      continue;
    }
    work.push(SEPARATOR);
    for (let i = node.childNodes.length - 1; i >= 0; i--) work.push(node.childNodes[i]!);
  }
  el.childNodes = out;
  return elements;
}

/** Marks where a hoisted element ended, in `flatten`'s work list. */
const SEPARATOR = Symbol('separator');
