import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { graphicsFromText, type PageGraphics, readGraphics } from './graphics.ts';
import type { PdfJs } from './load-document.ts';
import type { LinkArea, PageContent, TextRun } from './page-content.ts';
import { readTextLayer, textRuns, unresolvedFonts } from './read-text.ts';

type Matrix = [number, number, number, number, number, number];

/**
 * The first pages of a document always have their rules and images read, and decide whether
 * links are read on the pages after them.
 */
export const FIRST_PAGES = 4;

export interface PageRead {
  content: PageContent;
  /** Share of unreadable characters in the text layer. */
  garbage: number;
}

/**
 * What carries from page to page. A page's content depends only on the document and this
 * state's settings, never on which pages a pdf.js instance read before it, so pages can be
 * shared between threads and still come out the same.
 */
export interface ReadState {
  /** Scan for scanned pages (auto mode): read images where the text is thin. */
  wantImages: boolean;
  /**
   * Read link annotations (not in fast mode: pdf.js extracts a page's text a second time to
   * fill in what each link overlays, which takes as long as the page's own text).
   */
  wantLinks: boolean;
  /**
   * Whether the first pages show a link whose visible text is not its own address: links
   * are then read on every page. Settled once the first pages are read.
   */
  anchorLinks: boolean;
  /** Fonts this pdf.js instance has loaded through an operator list, or tried to. */
  triedFonts: Set<string>;
}

/**
 * One page as `PageContent`. Rules and images are used only where they can matter: the first
 * pages, pages whose text lines have table-like gaps, pages with little or unreadable text
 * (scans) and pages with annotations that draw text. The reading copy of pdf.js meets them
 * while it reads the text; an operator list, which costs as much as the text itself, is read
 * for annotations' text, for a font not yet resolved, and where pdf.js is as shipped.
 */
export async function readPage(
  pdfjs: PdfJs,
  page: PDFPageProxy,
  index: number,
  state: ReadState,
): Promise<PageRead> {
  const first = index < FIRST_PAGES;
  const viewport = page.getViewport({ scale: 1 });
  const transform = viewport.transform as Matrix;
  const width = viewport.width;
  const height = viewport.height;
  const area = Math.max(1, width * height);
  const empty: PageGraphics = { segments: [], images: [], annotationText: [] };
  // pdf.js extracts the page's text a second time to fill in what each link overlays, which
  // doubles the cost of a page. Links whose text is their own URL add nothing to the text,
  // so link annotations are read on the first pages and, when those show links with other
  // text ("click here"), on every page (fast mode reads none). Otherwise only the printable
  // annotations are listed, which costs nothing, to find form fields and other annotations
  // that draw text.
  const withLinks = state.wantLinks && (first || state.anchorLinks);
  const annotations = await readAnnotations(page, withLinks);
  const drawn = annotations.some(drawsText);
  const layer = await readTextLayer(page);
  // A font's real name (bold, italic) is known once pdf.js has sent the font over: the
  // reading copy of pdf.js sends what text extraction loaded (see patched-worker.ts), the
  // drawing copy only what an operator list loaded. It arrives through promise callbacks.
  if (unresolvedFonts(page, layer).length > 0) await settled();
  const fonts = unresolvedFonts(page, layer).filter((f) => !state.triedFonts.has(f));
  for (const f of fonts) state.triedFonts.add(f);
  const listed =
    drawn || fonts.length > 0 || (first && !layer.graphics)
      ? await readGraphics(pdfjs, page, transform, area, drawn).catch(() => empty)
      : undefined;
  if (fonts.length > 0) await settled();
  const text = textRuns(pdfjs, page, transform, layer, listed?.annotationText ?? []);
  const sparse = text.runs.reduce((n, r) => n + r.text.length, 0) < 40 || text.garbage > 0.3;
  const wanted = first || drawn || (state.wantImages && sparse) || looksTabular(text.runs);
  // Rules serve only pages that want them, whichever pass found them, so whether a page's
  // table is found never depends on which fonts this pdf.js instance had already seen. Those
  // met while reading the text serve unless an annotation draws text or a soft mask may paint
  // an image: the operator list has those.
  let graphics = empty;
  const met = drawn || layer.graphics?.some((g) => g.softMask) ? undefined : layer.graphics;
  if (wanted && met) graphics = graphicsFromText(pdfjs, met, transform, area);
  else if (wanted)
    graphics = listed ?? (await readGraphics(pdfjs, page, transform, area, false).catch(() => empty));
  let links: LinkArea[] = [];
  if (withLinks) {
    links = linkAreas(annotations, transform);
    if (first && links.some((l) => !showsOwnUrl(l, text.runs))) state.anchorLinks = true;
  }
  return {
    content: {
      index,
      width,
      height,
      runs: text.runs,
      segments: graphics.segments,
      links,
      images: graphics.images,
    },
    garbage: text.garbage,
  };
}

/** Once the promise callbacks queued so far have run (fonts reach commonObjs through them). */
function settled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Rows with three or more runs separated by wide gaps, on several rows: maybe a table. */
function looksTabular(runs: readonly TextRun[]): boolean {
  const rows = new Map<number, TextRun[]>();
  for (const r of runs) {
    const key = Math.round((r.y + r.height) / 3);
    const row = rows.get(key) ?? [];
    row.push(r);
    rows.set(key, row);
  }
  let tabular = 0;
  for (const row of rows.values()) {
    if (row.length < 3) continue;
    row.sort((a, b) => a.x - b.x);
    let gaps = 0;
    for (let i = 1; i < row.length; i++)
      if (row[i]!.x - (row[i - 1]!.x + row[i - 1]!.width) > row[i]!.fontSize * 0.8) gaps++;
    if (gaps >= 2 && ++tabular >= 2) return true;
  }
  return false;
}

interface Annotation {
  subtype?: unknown;
  url?: unknown;
  rect?: unknown;
  hasAppearance?: unknown;
}

/**
 * The page's annotations: all it shows on screen when links are wanted, else only those it
 * prints (pdf.js then skips the link-text pass). A page whose annotations cannot be read
 * loses them, not its text.
 */
async function readAnnotations(page: PDFPageProxy, withLinks: boolean): Promise<Annotation[]> {
  try {
    return (await page.getAnnotations({ intent: withLinks ? 'display' : 'print' })) as Annotation[];
  } catch {
    return [];
  }
}

/** Annotations whose appearance can show text: filled-in form fields, typed notes, stamps. */
function drawsText(a: Annotation): boolean {
  return (
    a.hasAppearance === true && (a.subtype === 'Widget' || a.subtype === 'FreeText' || a.subtype === 'Stamp')
  );
}

function linkAreas(annotations: readonly Annotation[], m: Matrix): LinkArea[] {
  const links: LinkArea[] = [];
  for (const a of annotations) {
    if (a.subtype !== 'Link' || typeof a.url !== 'string' || !Array.isArray(a.rect) || a.rect.length !== 4)
      continue;
    const [ax, ay, bx, by] = a.rect as [number, number, number, number];
    const x1 = m[0] * ax + m[2] * ay + m[4];
    const y1 = m[1] * ax + m[3] * ay + m[5];
    const x2 = m[0] * bx + m[2] * by + m[4];
    const y2 = m[1] * bx + m[3] * by + m[5];
    links.push({
      x: Math.min(x1, x2),
      y: Math.min(y1, y2),
      width: Math.abs(x2 - x1),
      height: Math.abs(y2 - y1),
      url: a.url,
    });
  }
  return links;
}

/** Whether the text under a link is its address (a printed URL) rather than anchor text. */
function showsOwnUrl(link: LinkArea, runs: readonly TextRun[]): boolean {
  let text = '';
  for (const r of runs) {
    const cx = r.x + r.width / 2;
    const cy = r.y + r.height / 2;
    if (cx >= link.x && cx <= link.x + link.width && cy >= link.y && cy <= link.y + link.height)
      text += r.text;
  }
  const shown = text.replace(/\s+/g, '').toLowerCase();
  const url = link.url
    .toLowerCase()
    .replace(/^(https?:\/\/|mailto:)/, '')
    .replace(/^www\./, '');
  return shown.length > 0 && (shown.includes(url.slice(0, 12)) || /^(https?:|www\.)/.test(shown));
}
