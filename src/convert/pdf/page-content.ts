/**
 * One PDF page as the layout analysis sees it, whatever produced it: the text layer read
 * by pdf.js, or words recognized by OCR on the rendered page. Coordinates are PDF points
 * in a top-left frame (x to the right, y down), after the page's rotation is applied.
 */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A run of text set in one font along one baseline (pdf.js text item, or one OCR word). */
export interface TextRun extends Box {
  text: string;
  /** Font size in points (the run's height for OCR words). */
  fontSize: number;
  /** The font's real name when known ("Verdana,Bold"), for weight and monospace hints. */
  fontName: string;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Writing direction of the run. */
  dir: 'ltr' | 'rtl' | 'ttb';
  /** Recognition confidence 0-100 for OCR words; undefined for the text layer. */
  confidence?: number;
}

/** A straight stroke or a rectangle edge from the page's vector graphics (ruled tables). */
export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** Stroke width in points (a filled thin rectangle counts as a segment of its thickness). */
  lineWidth: number;
}

/** A link annotation: the area it covers and where it goes. */
export interface LinkArea extends Box {
  url: string;
}

/** An image drawn on the page, for placeholders and for deciding whether a page is scanned. */
export interface ImageArea extends Box {
  /** Share of the page area the image covers, 0-1. */
  coverage: number;
}

export interface PageContent {
  /** 0-based page index. */
  index: number;
  width: number;
  height: number;
  runs: TextRun[];
  segments: Segment[];
  links: LinkArea[];
  images: ImageArea[];
}

/** One cell of a detected table, with the runs whose text it holds. */
export interface TableCell {
  row: number;
  col: number;
  rowSpan: number;
  colSpan: number;
  text: string;
}

/** A table found on a page: its area, its grid and the runs it consumed (left out of the prose). */
export interface DetectedTable {
  box: Box;
  rows: number;
  cols: number;
  cells: TableCell[];
  /** Whether the first row is a header row. */
  header: boolean;
  /** Indexes into `PageContent.runs` of the runs inside the table. */
  runs: number[];
}
