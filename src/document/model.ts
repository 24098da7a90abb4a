import type { Element, ElementData, Root, RootContent } from 'hast';

/**
 * The one document model every converter produces. The body is a hast tree (an HTML
 * syntax tree, https://github.com/syntax-tree/hast) restricted to semantic elements:
 * headings, paragraphs, lists (`ol[start]`, task items as `input[type=checkbox]`),
 * tables (`th`, `colspan`, `rowspan`), links, images, code, quotes. Transforms and
 * renderers work on this tree alone, so a fix there fixes every format at once.
 *
 * Conventions beyond plain HTML, shared by every converter and renderer:
 * - footnotes and endnotes (the GitHub / remark-rehype shape): the reference is
 *   `<sup><a href="#fn-L" id="fnref-L" data-footnote-ref>L</a></sup>` and the notes sit in one
 *   `<section data-footnotes><ol><li id="fn-L">blocks</li></ol></section>` at the end, where
 *   L is the note's label; Markdown renders them as `[^L]` and `[^L]: text`;
 * - equations as LaTeX: inline `<code class="language-math math-inline">`, display
 *   `<pre><code class="language-math math-display">`; Markdown renders `$x$` and `$$x$$`;
 * - embedded images as `<img src="data:mime;base64,..." alt="...">`, so their bytes reach the
 *   `images` format while Markdown shows the alt-text placeholder;
 * - task items as `<li><input type="checkbox" checked>`, numbering as `<ol start="N">`;
 * - merged cells as `colspan`/`rowspan`, and a table inside a table cell stays a table: in
 *   documents, Markdown keeps such tables as HTML, since GFM can express neither;
 * - page marks: in a paged document (QuireDocument.pages set), each top-level block element
 *   carries the page it starts on in `data.page` (never rendered), so per-page outputs can
 *   split the one rendered document by page.
 *
 * Large tabular data (CSV now, spreadsheets later) is carried by a `dataTable` node whose
 * rows are produced on demand, so a 50 MB table never exists as millions of tree nodes.
 */
export interface DataTable {
  type: 'dataTable';
  /** Widest row; shorter rows are padded when rendered. */
  columns: number;
  /** Number of data rows (the header excluded). */
  rowCount: number;
  /** The header row, or undefined when the source has none. */
  header: string[] | undefined;
  /** Yields every data row, freshly, each time it is called. */
  rows: () => Iterable<string[]>;
  position?: undefined;
  data?: undefined;
}

declare module 'hast' {
  interface RootContentMap {
    dataTable: DataTable;
  }
  interface ElementData {
    /**
     * Page mark: the 1-based physical page a top-level block starts on, in paged documents.
     * Kept in `data`, which no renderer writes out, so it never reaches HTML or Markdown.
     */
    page?: number;
  }
}

/** Marks a top-level element with the 1-based page it starts on. */
export function markPage(node: Element, page: number): void {
  // hast-util-from-parse5 declares `position` required in ElementData, though it sets it only
  // in verbose mode; an element without data gets one holding the page alone.
  if (node.data) node.data.page = page;
  else node.data = { page } as ElementData;
}

/** The page a top-level element starts on, when the document is paged. */
export function pageOf(node: RootContent): number | undefined {
  return node.type === 'element' ? node.data?.page : undefined;
}

/** What a block of a page is, as the per-page `blocks` output names it. */
export type PageBlockType =
  | 'heading'
  | 'paragraph'
  | 'list'
  | 'table'
  | 'code'
  | 'figure'
  | 'header'
  | 'footer';

/** One block of a page as the layout analysis found it. */
export interface PageBlockInfo {
  type: PageBlockType;
  /** `h2` for a level-2 heading; null otherwise. */
  label: string | null;
  /** [x0, y0, x1, y1] in points, origin at the page's top left. */
  bbox: [number, number, number, number];
  /** The block's plain text ('' for a figure). */
  content: string;
  /** The top-level element that holds the block in the tree; absent when the tree leaves it out. */
  node?: Element;
  /**
   * The block alone, when it is only part of `node` (some of a list's items, the rest of a
   * paragraph that runs on from the page before): its Markdown is found inside the node's.
   * The parts of one node come in order and together make up the node.
   */
  part?: Element;
  source: 'text-layer' | 'ocr';
  /** Mean recognition confidence of the block's OCR words, 0-1; null when not OCR'd. */
  ocrConfidence: number | null;
}

/** One physical page of a paged document: its size and, when asked for, its blocks. */
export interface PageInfo {
  /** 1-based physical page number. */
  pageNumber: number;
  /** Size in points; null when the page could not be read. */
  width: number | null;
  height: number | null;
  status: 'ok' | 'failed';
  /** The page's blocks in reading order, gathered only when a caller asks for them. */
  blocks?: PageBlockInfo[];
}

/** Counts (a PDF's `numPages`) are numbers, as upstream answers them. */
export type MetadataValue = string | number | string[];
export type DocumentMetadata = Record<string, MetadataValue>;

export interface QuireDocument {
  /** `web` pages get main-content extraction and tag filters; `document` formats do not. */
  kind: 'web' | 'document';
  tree: Root;
  /** What the document says about itself: title, description, language, keywords, og:*, ... */
  metadata: DocumentMetadata;
  /** The MIME type reported as `metadata.contentType`. */
  contentType: string;
  /** The decoded source of an HTML page, for the `rawHtml` format. */
  rawHtml?: string;
  /** The URL relative references were resolved against. */
  baseUrl: string;
  /** Things the caller should know: recovered damage, truncation, relabelled input. */
  warnings: string[];
  /**
   * Paged documents (PDF): every page parsed, in order. Their top-level blocks then carry
   * page marks (`data.page`), by which per-page outputs split the rendered document.
   */
  pages?: PageInfo[];
  /** Pages recognised by OCR (attempted, failed ones too): what the metrics count as OCR work. */
  ocrPages?: number;
}
