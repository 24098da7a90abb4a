import type { DefaultTreeAdapterTypes } from 'parse5';
import { parse } from 'parse5';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { emptyHead, type PageHead } from './metadata.ts';

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
 * (A page that shows next to nothing but its noscript content is read without scripting: see
 * `parsePage`.)
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
 * What happens to `noscript`: dropped with its content (a browser with scripting on, which
 * parses that content as text), or replaced by its content, parsed as HTML by a parser with
 * scripting off (what a browser without JavaScript shows).
 */
type Noscript = 'drop' | 'unwrap';

function isNoscript(node: P5Node): node is P5Element {
  return isElement(node) && node.tagName === 'noscript' && node.namespaceURI === HTML_NS;
}

/** `children` with each `noscript` among them replaced by its own children, however deep they nest. */
function unwrapNoscript(parent: P5Parent, children: P5Child[]): P5Child[] {
  if (!children.some(isNoscript)) return children;
  const out: P5Child[] = [];
  const work = [...children].reverse();
  while (work.length > 0) {
    const child = work.pop()!;
    if (!isNoscript(child)) {
      child.parentNode = parent;
      out.push(child);
    } else for (let i = child.childNodes.length - 1; i >= 0; i--) work.push(child.childNodes[i]!);
  }
  return out;
}

/**
 * Walks a parsed page once, without recursion: gathers the head's metadata, drops comments and
 * the elements in `DROPPED` (`noscript` too, unless it is to be unwrapped), flattens elements
 * nested deeper than `limits.htmlDepth` (their text is hoisted to that depth, so recursive
 * tree utilities downstream stay within the stack), and refuses a page with more than
 * `limits.htmlElements` elements.
 *
 * Returns the element holding the page's content (`body`, else `html`), or undefined for an
 * empty document.
 */
export function preparePage(
  doc: P5Document,
  head: PageHead,
  noscript: Noscript = 'drop',
): P5Element | undefined {
  let elements = 0;
  const stack: Frame[] = [{ node: doc, depth: 0, keep: true }];
  while (stack.length > 0) {
    const { node, depth, keep } = stack.pop()!;
    if (isElement(node) && node.namespaceURI === HTML_NS) collectHead(node, head);
    if (keep && depth >= limits.htmlDepth) {
      elements += flatten(node as P5Element, noscript);
      if (elements > limits.htmlElements) throw tooManyElements();
      continue;
    }
    const children = keep && noscript === 'unwrap' ? unwrapNoscript(node, node.childNodes) : node.childNodes;
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

/** Below this much text (non-space characters: a splash line, a cookie notice) a page shows next to nothing. */
const MIN_SHOWN_TEXT = 200;

/** Non-space characters of text under `el`, counted up to `cap`. */
function shownText(el: P5Element | undefined, cap: number): number {
  let count = 0;
  const stack: P5Node[] = el ? [el] : [];
  while (stack.length > 0 && count < cap) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') count += (node as P5Text).value.replace(/\s+/g, '').length;
    else if ('childNodes' in node) for (const child of node.childNodes) stack.push(child);
  }
  return count;
}

/**
 * Parses a page as a browser with scripting on does, and prepares it (`preparePage`). A page
 * saved without JavaScript can hold nearly all its text inside `noscript` (Discourse serves its
 * posts that way); when the page shows next to no text otherwise, it is read as a browser
 * without JavaScript shows it instead, if that shows more: parsed with scripting off, each
 * `noscript` replaced by its content. The head's metadata comes from the first reading.
 */
export function parsePage(text: string, head: PageHead): P5Element | undefined {
  const body = preparePage(parse(text), head);
  if (!/<noscript/i.test(text)) return body;
  const shown = shownText(body, MIN_SHOWN_TEXT);
  if (shown >= MIN_SHOWN_TEXT) return body;
  const withoutScripting = preparePage(parse(text, { scriptingEnabled: false }), emptyHead(), 'unwrap');
  return shownText(withoutScripting, 2 * shown + 1) > 2 * shown ? withoutScripting : body;
}

/**
 * Replaces the descendants of `el` by its leaves (text and empty elements such as `img` and
 * `br`), in document order, with a space where an element ended so that words stay apart,
 * adjacent text joined into one node.
 * Returns the number of elements seen.
 */
function flatten(el: P5Element, noscript: Noscript): number {
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
    if (
      node.namespaceURI === HTML_NS &&
      DROPPED.has(node.tagName) &&
      !(noscript === 'unwrap' && isNoscript(node))
    )
      continue;
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
