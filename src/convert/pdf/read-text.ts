import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextPassGraphics } from './graphics.ts';
import type { PdfJs } from './load-document.ts';
import type { TextRun } from './page-content.ts';
import { cleanRunText, garbageShare, RTL } from './text-cleanup.ts';

/** The fields of a pdf.js text item used here. */
interface TextItem {
  str: string;
  dir: string;
  width: number;
  height: number;
  transform: number[];
  fontName: string;
}

type Matrix = [number, number, number, number, number, number];

interface FontFacts {
  fontName: string;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
}

const MONO_NAME = /mono|courier|consol|menlo|inconsolata|code|typewriter|lucida ?console|cmtt|sfmono/i;
const BOLD_NAME = /bold|black|heavy|semibold|demi|,b$|-b$|bx\d/i;
const ITALIC_NAME = /italic|oblique|,i$|-i$|(cm|sf)(ti|sl)\d/i;

/** What pdf.js tells about a font once it is loaded (`fontExtraProperties` keeps `name`). */
interface LoadedFont {
  name?: unknown;
  bold?: unknown;
  black?: unknown;
  italic?: unknown;
}

/**
 * The real font name and style of a text item's font. pdf.js resolves `commonObjs` entries
 * only when an operator list loaded the font; without one, the generic family ("monospace")
 * from the text content is all there is.
 */
function fontFacts(page: PDFPageProxy, loadedName: string, family: string | undefined): FontFacts {
  let font: LoadedFont | undefined;
  try {
    if (page.commonObjs.has(loadedName)) font = page.commonObjs.get(loadedName) as LoadedFont;
  } catch {
    font = undefined;
  }
  const name = typeof font?.name === 'string' ? font.name.replace(/^[A-Z]{6}\+/, '') : '';
  return {
    fontName: name,
    bold: font?.bold === true || font?.black === true || BOLD_NAME.test(name),
    italic: font?.italic === true || ITALIC_NAME.test(name),
    // Tesseract's invisible text layer uses a fixed-pitch "GlyphLessFont"; it is not code.
    monospace: !/glyphless/i.test(name) && (family === 'monospace' || MONO_NAME.test(name)),
  };
}

/** Hebrew presentation forms (letters with points, wide letters, ligatures). */
const HEBREW_FORMS = /[\ufb1d-\ufb4f]/;

type Style = { fontFamily?: string; ascent?: number; descent?: number; vertical?: boolean };

/** A page's text items and their fonts' styles, as pdf.js extracts them. */
export interface TextLayer {
  items: TextItem[];
  styles: Record<string, Style>;
  /** The rules and images met on the way, when the reading copy of pdf.js read the page. */
  graphics?: TextPassGraphics[];
}

export interface PageText {
  runs: TextRun[];
  /** Share of unreadable characters in the raw text layer. */
  garbage: number;
}

export async function readTextLayer(page: PDFPageProxy): Promise<TextLayer> {
  // pdf.js would NFKC ligatures before its bidi pass, which then reverses their letters
  // (Arabic lam-khah read as khah-lam); cleanRunText normalizes after it instead. Its bidi
  // pass does not know Hebrew presentation forms as right-to-left, though, so a page that
  // has them is read again with pdf.js normalizing first.
  let content = await page.getTextContent({ disableNormalization: true });
  const graphics = content.items.filter(
    (item): item is typeof item & TextPassGraphics => 'type' in item && item.type === 'quireGraphics',
  );
  if (content.items.some((item) => 'str' in item && HEBREW_FORMS.test(item.str)))
    content = await page.getTextContent();
  const items = content.items.filter((item): item is typeof item & TextItem => 'str' in item);
  return { items, styles: content.styles, ...(graphics.length > 0 && { graphics }) };
}

/** Fonts of the layer whose real names pdf.js has not resolved (no operator list loaded them). */
export function unresolvedFonts(page: PDFPageProxy, layer: TextLayer): string[] {
  const names = new Set<string>();
  for (const item of layer.items)
    if (item.str.trim() && !page.commonObjs.has(item.fontName)) names.add(item.fontName);
  return [...names];
}

/**
 * The text layer as runs in the top-left point frame (the viewport's transform applied), with
 * the text that annotations draw (`drawn`, read from the operator list) after it.
 */
export function textRuns(
  pdfjs: PdfJs,
  page: PDFPageProxy,
  viewport: Matrix,
  layer: TextLayer,
  drawn: readonly TextItem[],
): PageText {
  const runs: TextRun[] = [];
  const facts = new Map<string, FontFacts>();
  const raw: string[] = [];
  for (const item of [...layer.items, ...drawn]) {
    const text = item.str;
    if (!text?.trim()) continue;
    raw.push(text);
    const style = layer.styles[item.fontName];
    let font = facts.get(item.fontName);
    if (!font) {
      font = fontFacts(page, item.fontName, style?.fontFamily);
      facts.set(item.fontName, font);
    }
    const run = toRun(pdfjs, item, viewport, style, font);
    if (run) runs.push(run);
  }
  return { runs, garbage: garbageShare(raw) };
}

function toRun(
  pdfjs: PdfJs,
  item: TextItem,
  viewport: Matrix,
  style: Style | undefined,
  font: FontFacts,
): TextRun | undefined {
  const m = pdfjs.Util.transform(viewport, item.transform) as Matrix;
  const fontSize = Math.hypot(m[2], m[3]);
  if (!(fontSize > 0.5) || !Number.isFinite(m[4]) || !Number.isFinite(m[5])) return undefined;
  const text = cleanRunText(item.str);
  const base = { text, fontSize, ...font };
  if (style?.vertical) {
    // Vertical writing: the item runs down from its origin; its width is the column's.
    return {
      ...base,
      x: m[4] - fontSize / 2,
      y: m[5],
      width: fontSize,
      height: Math.max(item.height, fontSize),
      dir: 'ttb',
    };
  }
  let ascent = style?.ascent ?? 0.8;
  let descent = style?.descent ?? -0.2;
  if (!(ascent > 0.5 && ascent < 1.2)) ascent = 0.8;
  if (!(descent < 0 && descent > -0.5)) descent = -0.2;
  const advance = item.width;
  // Text turned by a quarter (rotated page or sideways label): its extent runs along y.
  if (Math.abs(m[1]) > Math.abs(m[0])) {
    const down = m[1] > 0;
    return {
      ...base,
      x: m[4] - fontSize * (down ? ascent : -descent),
      y: down ? m[5] : m[5] - advance,
      width: fontSize * (ascent - descent),
      height: advance,
      dir: 'ttb',
    };
  }
  const leftward = m[0] < 0;
  return {
    ...base,
    x: leftward ? m[4] - advance : m[4],
    y: m[5] - fontSize * ascent,
    width: advance,
    height: fontSize * (ascent - descent),
    dir: item.dir === 'rtl' || RTL.test(text) ? 'rtl' : 'ltr',
  };
}
