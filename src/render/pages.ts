import type { Element, Root, RootContent } from 'hast';
import { type PageInfo, pageOf } from '../document/model.ts';

/** Renders a tree (a whole document, one page, one block) as the response's Markdown. */
export type RenderMarkdown = (tree: Root) => string;

/** One physical page's Markdown (the `pages` output). */
export interface PageMarkdown {
  pageNumber: number;
  markdown: string;
}

/** One block of a page (an item of the `blocks` output). */
export interface PageBlockItem {
  id: string;
  type: string;
  label: string | null;
  bbox: [number, number, number, number];
  content: string;
  /** UTF-16 offsets of the block's Markdown in the response's `markdown`, end exclusive. */
  markdownSpan: [number, number] | null;
  readingOrder: number;
  source: 'text-layer' | 'ocr';
  confidence: { layout: number | null; ocr: number | null };
}

/** One page's blocks (the `blocks` output). */
export interface PageBlocks {
  pageNumber: number;
  width: number | null;
  height: number | null;
  status: 'ok' | 'failed';
  items: PageBlockItem[];
}

/** What goes between two pages in `markdown` with page markers: N is the page that follows. */
export function pageMarker(page: number): string {
  return `\n\n---\n\n<!-- page ${page} -->\n\n`;
}

/**
 * Each page's Markdown, by page number, from the page marks of the tree's top-level elements
 * (an element without one stays with the page before it). A block that runs on across a page
 * break is one element, so it belongs to the page it starts on; a page on which no block starts
 * has no entry.
 */
export function renderByPage(tree: Root, render: RenderMarkdown): Map<number, string> {
  const runs: { page: number; children: RootContent[] }[] = [];
  for (const child of tree.children) {
    const page = pageOf(child);
    const last = runs[runs.length - 1];
    if (last && (page === undefined || page === last.page)) last.children.push(child);
    else runs.push({ page: page ?? 1, children: [child] });
  }
  const out = new Map<number, string>();
  for (const run of runs) {
    const markdown = render({ type: 'root', children: run.children });
    if (!/\S/.test(markdown)) continue;
    const before = out.get(run.page);
    out.set(run.page, before === undefined ? markdown : `${before}\n\n${markdown}`);
  }
  return out;
}

/** The pages' Markdown in page order, a page marker between each two (none before the first). */
export function joinWithMarkers(byPage: ReadonlyMap<number, string>): string {
  let out = '';
  for (const page of [...byPage.keys()].sort((a, b) => a - b))
    out += out === '' ? byPage.get(page)! : pageMarker(page) + byPage.get(page)!;
  return out;
}

/** Every page listed, with "" for a page on which no block starts. */
export function pagesOutput(pages: readonly PageInfo[], byPage: ReadonlyMap<number, string>): PageMarkdown[] {
  return pages.map((p) => ({ pageNumber: p.pageNumber, markdown: byPage.get(p.pageNumber) ?? '' }));
}

/**
 * The `blocks` output: the pages' blocks with their reading order and, when `markdown` is
 * given, where each block's Markdown is in it. A block is found by rendering its element alone
 * and looking for that text from where the previous one ended (so the search is linear), and
 * a part of an element (some list items, the rest of a paragraph) inside that element's span.
 * A block the Markdown leaves out (running headers, pictures), or whose Markdown is written
 * differently in context, gets null.
 */
export function blocksOutput(
  pages: readonly PageInfo[],
  tree: Root,
  markdown: string | undefined,
  render: RenderMarkdown,
): PageBlocks[] {
  const spans = markdown === undefined ? undefined : locate(pages, tree, markdown, render);
  return pages.map((page) => ({
    pageNumber: page.pageNumber,
    width: page.width,
    height: page.height,
    status: page.status,
    items: (page.blocks ?? []).map((b, i) => ({
      id: `p${page.pageNumber}-b${i}`,
      type: b.type,
      label: b.label,
      bbox: b.bbox,
      content: b.content,
      markdownSpan: (b.node && spans?.get(b.part ?? b.node)) ?? null,
      readingOrder: i,
      source: b.source,
      // Quire's layout analysis is rule-based: it has no calibrated probability to give.
      confidence: { layout: null, ocr: b.ocrConfidence },
    })),
  }));
}

/** Room for what may stand between two blocks' Markdown: blank lines and a page marker. */
const GAP = 256;

/** Where the Markdown of each block element (node or part) is in `markdown`. */
function locate(
  pages: readonly PageInfo[],
  tree: Root,
  markdown: string,
  render: RenderMarkdown,
): Map<Element, [number, number]> {
  const parts = new Map<Element, Element[]>();
  for (const page of pages)
    for (const b of page.blocks ?? []) {
      if (!b.node) continue;
      const list = parts.get(b.node);
      if (!list) parts.set(b.node, b.part ? [b.part] : []);
      else if (b.part) list.push(b.part);
    }
  const spans = new Map<Element, [number, number]>();
  let cursor = 0;
  // Text of elements not found since the last one that was: the next may lie past it.
  let skipped = 0;
  const children = tree.children;
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    if (node.type !== 'element' || !parts.has(node)) continue;
    const alone = render({ type: 'root', children: [node] });
    let md = alone;
    let at = md ? find(markdown, md, cursor, cursor + skipped + md.length + GAP) : -1;
    const prev = children[i - 1];
    if (at < 0 && md && prev) {
      // Written after its neighbour, a block may differ (a list after a list takes the other
      // bullet, so that the two stay apart): written with it, the block is what follows it.
      const before = render({ type: 'root', children: [prev] });
      const pair = render({ type: 'root', children: [prev, node] });
      if (pair.startsWith(before)) {
        md = pair.slice(before.length).replace(/^\n+/, '');
        at = md ? find(markdown, md, cursor, cursor + skipped + md.length + GAP) : -1;
      }
    }
    if (at < 0) {
      skipped += alone.length + GAP;
      continue;
    }
    const span: [number, number] = [at, at + md.length];
    spans.set(node, span);
    cursor = span[1];
    skipped = 0;
    locateParts(markdown, node, span, parts.get(node)!, render, spans);
  }
  return spans;
}

/**
 * The spans of an element's parts, which come in order and together make up the element. A
 * part written differently inside the element (an escape that depends on what follows it) is
 * the stretch between the parts found on either side of it.
 */
function locateParts(
  markdown: string,
  node: Element,
  span: [number, number],
  parts: readonly Element[],
  render: RenderMarkdown,
  spans: Map<Element, [number, number]>,
): void {
  // A part holding all of a list is the list, however its items would be written alone.
  if (
    parts.length === 1 &&
    /^[ou]l$/.test(node.tagName) &&
    parts[0]!.children.length === node.children.length
  ) {
    spans.set(parts[0]!, span);
    return;
  }
  const found: ([number, number] | undefined)[] = [];
  let inner = span[0];
  for (const part of parts) {
    const md = render({ type: 'root', children: [part] });
    const from = md ? find(markdown, md, inner, span[1]) : -1;
    if (from < 0) found.push(undefined);
    else {
      found.push([from, from + md.length]);
      inner = from + md.length;
    }
  }
  for (const [i, part] of parts.entries()) {
    const own = found[i];
    if (own) {
      spans.set(part, own);
      continue;
    }
    const before = i === 0 ? span[0] : found[i - 1]?.[1];
    const after = i === parts.length - 1 ? span[1] : found[i + 1]?.[0];
    if (before === undefined || after === undefined) continue;
    const text = markdown.slice(before, after);
    const start = before + (text.length - text.trimStart().length);
    const end = after - (text.length - text.trimEnd().length);
    if (end > start) spans.set(part, [start, end]);
  }
}

/** Index of `needle` in `text` within [from, to), or -1. */
function find(text: string, needle: string, from: number, to: number): number {
  const at = text.slice(from, Math.min(to, text.length)).indexOf(needle);
  return at < 0 ? -1 : from + at;
}
