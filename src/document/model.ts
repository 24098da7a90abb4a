import type { Root } from 'hast';

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
 *   documents, Markdown keeps such tables as HTML, since GFM can express neither.
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
}
