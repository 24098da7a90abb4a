import type { Element, ElementContent } from 'hast';
import { h } from 'hastscript';
import { localName, mathmlToLatex } from '../math/mathml-to-latex.ts';
import { resolvePartPath } from '../package/ooxml.ts';
import { type BookState, key } from './book-state.ts';

export interface ChapterContext {
  /** The chapter's package path. */
  chapter: string;
  book: BookState;
  /** A `data:` URI for the package file at `path`, or undefined when it is missing or no image. */
  image: (path: string) => string | undefined;
}

const NOTE_TYPES = new Set(['footnote', 'endnote', 'rearnote', 'note', 'doc-footnote', 'doc-endnote']);
const NOTE_SECTION_TYPES = new Set(['footnotes', 'endnotes', 'rearnotes', 'doc-endnotes', 'doc-footnotes']);
const NOTE_REF_TYPES = new Set(['noteref', 'doc-noteref']);
/** Namespaces this converter renders, for choosing an `epub:switch` case. */
const SUPPORTED_NAMESPACES = new Set(['http://www.w3.org/1998/Math/MathML']);

function str(v: unknown): string {
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(' ') : '';
}

const NONE: string[] = [];

/** `epub:type` and `role` tokens of an element. */
function semantics(el: Element): string[] {
  const type = el.properties['epub:type'];
  const role = el.properties.role;
  if (type === undefined && role === undefined) return NONE;
  const tokens = `${str(type)} ${str(role)}`;
  return tokens.toLowerCase().split(/\s+/).filter(Boolean);
}

const hasScheme = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href);

/** The case an `epub:switch` would show: the first whose namespace is rendered, else the default. */
function chooseCase(el: Element): ElementContent[] {
  const branches = el.children.filter((c): c is Element => c.type === 'element');
  const chosen =
    branches.find(
      (b) =>
        localName(b) === 'case' && SUPPORTED_NAMESPACES.has(str(b.properties['required-namespace']).trim()),
    ) ?? branches.find((b) => localName(b) === 'default');
  return chosen ? chosen.children : [];
}

function mathElement(el: Element): ElementContent | undefined {
  const latex = mathmlToLatex(el);
  if (!latex) return undefined;
  return str(el.properties.display) === 'block'
    ? h('pre', [h('code', { className: ['language-math', 'math-display'] }, latex)])
    : h('code', { className: ['language-math', 'math-inline'] }, latex);
}

/** SVG wrappers of raster images (cover pages, fixed illustrations) → plain images. */
function svgImages(el: Element, ctx: ChapterContext): ElementContent[] {
  const out: ElementContent[] = [];
  let alt = '';
  const stack: Element[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const c of node.children) {
      if (c.type !== 'element') continue;
      if (c.tagName === 'title' && !alt) alt = str(c.children[0]?.type === 'text' ? c.children[0].value : '');
      if (c.tagName === 'image') {
        const href = str(c.properties.xLinkHref) || str(c.properties.href);
        const src = href && imageUri(href, ctx);
        if (src) out.push(h('img', { src, alt: alt.trim() }));
      } else stack.push(c);
    }
  }
  return out;
}

function imageUri(src: string, ctx: ChapterContext): string | undefined {
  const trimmed = src.trim();
  if (/^data:/i.test(trimmed) || /^https?:/i.test(trimmed)) return trimmed;
  if (hasScheme(trimmed)) return undefined;
  return ctx.image(resolvePartPath(ctx.chapter, trimmed.replace(/[?#].*$/, '')));
}

interface Frame {
  el: Element;
  inNote: boolean;
}

/**
 * Walks one chapter's tree once, without recursion, and makes it self-contained: images
 * become `data:` URIs from the package, MathML becomes LaTeX, `epub:switch` keeps one case,
 * page-break markers go, ids are made unique across the book, and links and notes are
 * recorded for `connectChapters`, which resolves them once every chapter is known.
 */
export function walkChapter(root: Element, ctx: ChapterContext): void {
  const { book, chapter } = ctx;
  const stack: Frame[] = [{ el: root, inNote: false }];
  while (stack.length > 0) {
    const { el: parent, inNote } = stack.pop()!;
    const out: ElementContent[] = [];
    const work: ElementContent[] = [];
    for (let i = parent.children.length - 1; i >= 0; i--) work.push(parent.children[i]!);
    const frames: Frame[] = [];
    while (work.length > 0) {
      const node = work.pop()!;
      if (node.type !== 'element') {
        out.push(node);
        continue;
      }
      const name = localName(node);
      if (node.tagName === 'epub:switch') {
        const chosen = chooseCase(node);
        for (let i = chosen.length - 1; i >= 0; i--) work.push(chosen[i]!);
        continue;
      }
      const types = semantics(node);
      if (types.includes('pagebreak') || types.includes('doc-pagebreak')) continue;
      if (name === 'math') {
        const math = mathElement(node);
        if (math) out.push(math);
        continue;
      }
      if (node.tagName === 'svg') {
        const images = svgImages(node, ctx);
        if (images.length > 0) out.push(...images);
        continue;
      }
      if (node.tagName === 'img') {
        const src = imageUri(str(node.properties.src), ctx);
        if (!src) continue;
        node.properties.src = src;
      }
      // `delete` is only paid where needed: it turns the object into a slow dictionary.
      if (types !== NONE) delete node.properties['epub:type'];
      const isNote = types !== NONE && types.some((t) => NOTE_TYPES.has(t));
      if (types !== NONE && types.some((t) => NOTE_SECTION_TYPES.has(t)))
        book.noteSections.push({ el: node, parent });
      const rawId = node.properties.id;
      const id = rawId === undefined ? '' : str(rawId).trim();
      if (id) {
        const final = book.claim(id);
        book.ids.set(key(chapter, id), final);
        node.properties.id = final;
        if (isNote) book.notes.set(key(chapter, id), { el: node, parent });
      }
      if (node.tagName === 'a') {
        const noteref = types.some((t) => NOTE_REF_TYPES.has(t));
        if (noteref && id) book.noterefKeys.add(key(chapter, id));
        book.links.push({ el: node, parent, chapter, inNote, noteref });
      }
      out.push(node);
      if (node.children.length > 0) frames.push({ el: node, inNote: inNote || isNote });
    }
    parent.children = out;
    for (let i = frames.length - 1; i >= 0; i--) stack.push(frames[i]!);
  }
}
