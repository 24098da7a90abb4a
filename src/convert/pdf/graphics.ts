import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { limits } from '../../limits.ts';
import type { PdfJs } from './load-document.ts';
import type { ImageArea, Segment } from './page-content.ts';

type Matrix = [number, number, number, number, number, number];

/** Path opcodes inside a constructPath buffer (pdf.js DrawOPS). */
const MOVE = 0;
const LINE = 1;
const CURVE = 2;
const QUAD = 3;
const CLOSE = 4;

/** A stroke this far from horizontal/vertical (points) still counts as a rule. */
const AXIS_TOLERANCE = 1;
/** A filled rectangle thinner than this is drawn as a rule, not an area. */
const THIN_FILL = 3;

export interface PageGraphics {
  segments: Segment[];
  images: ImageArea[];
  /** Text drawn by annotations (form fields, free text, stamps), read when asked for. */
  annotationText: DrawnText[];
}

/** Text shown by an annotation's appearance, shaped like a pdf.js text item (PDF user space). */
export interface DrawnText {
  str: string;
  dir: 'ltr';
  width: number;
  height: number;
  transform: number[];
  fontName: string;
}

/** A showText glyph as pdf.js hands it over. */
interface Glyph {
  unicode?: unknown;
  width?: unknown;
  isSpace?: unknown;
}

/** A spacing adjustment in a TJ array (thousandths of an em) this negative separates words. */
const WORD_GAP = -200;

function multiply(m: Matrix, n: readonly number[]): Matrix {
  return [
    m[0] * n[0]! + m[2] * n[1]!,
    m[1] * n[0]! + m[3] * n[1]!,
    m[0] * n[2]! + m[2] * n[3]!,
    m[1] * n[2]! + m[3] * n[3]!,
    m[0] * n[4]! + m[2] * n[5]! + m[4],
    m[1] * n[4]! + m[3] * n[5]! + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/**
 * Rules (strokes, rectangle edges, thin filled bars) and image placements of one page, in
 * the top-left point frame: the current transformation matrix is tracked through
 * save/restore/transform and form XObjects, starting from the viewport's transform.
 */
export async function readGraphics(
  pdfjs: PdfJs,
  page: PDFPageProxy,
  viewport: Matrix,
  pageArea: number,
  withAnnotations: boolean,
): Promise<PageGraphics> {
  const OPS = pdfjs.OPS;
  const list = await page.getOperatorList({
    annotationMode: withAnnotations ? pdfjs.AnnotationMode.ENABLE : pdfjs.AnnotationMode.DISABLE,
  });
  const segments: Segment[] = [];
  const images: ImageArea[] = [];
  const annotationText: DrawnText[] = [];
  let ctm: Matrix = viewport;
  let lineWidth = 1;
  const stack: { ctm: Matrix; lineWidth: number }[] = [];
  const { fnArray, argsArray } = list;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === OPS.beginAnnotation) {
      i = readAnnotation(OPS, fnArray, argsArray, i, annotationText);
      continue;
    }
    switch (fn) {
      case OPS.save:
        if (stack.length < 1024) stack.push({ ctm, lineWidth });
        break;
      case OPS.restore: {
        const top = stack.pop();
        if (top) ({ ctm, lineWidth } = top);
        break;
      }
      case OPS.transform:
        if (args) ctm = multiply(ctm, args as number[]);
        break;
      case OPS.paintFormXObjectBegin:
        if (stack.length < 1024) stack.push({ ctm, lineWidth });
        if (Array.isArray(args?.[0]) || ArrayBuffer.isView(args?.[0]))
          ctm = multiply(ctm, Array.from(args[0] as ArrayLike<number>));
        break;
      case OPS.paintFormXObjectEnd: {
        const top = stack.pop();
        if (top) ({ ctm, lineWidth } = top);
        break;
      }
      case OPS.setLineWidth:
        if (typeof args?.[0] === 'number') lineWidth = args[0];
        break;
      case OPS.constructPath:
        if (args && segments.length < limits.pdfPageSegments)
          addPath(args, ctm, lineWidth, OPS, segments, pageArea);
        break;
      case OPS.paintImageXObject:
      case OPS.paintInlineImageXObject:
      case OPS.paintImageMaskXObject:
        addImage(ctm, images, pageArea);
        break;
    }
  }
  return { segments, images, annotationText };
}

/**
 * The paths and images the reading copy of pdf.js met while it read a content stream's text
 * (patched-worker.ts), each with the transformation matrix then current, in PDF user space.
 */
export interface TextPassGraphics {
  type: 'quireGraphics';
  paths: { op: number; lineWidth: number; ctm: ArrayLike<number>; path: Float32Array }[];
  images: ArrayLike<number>[];
  /** A soft mask was set, whose group can paint images only an operator list places. */
  softMask: boolean;
}

/**
 * The same as readGraphics (without annotations), from what text extraction met: `drawn`
 * holds a page's content streams in drawing order.
 */
export function graphicsFromText(
  pdfjs: PdfJs,
  drawn: readonly TextPassGraphics[],
  viewport: Matrix,
  pageArea: number,
): PageGraphics {
  const segments: Segment[] = [];
  const images: ImageArea[] = [];
  for (const { paths, images: placed } of drawn) {
    for (const p of paths)
      if (segments.length < limits.pdfPageSegments)
        addPath(
          [p.op, [p.path]],
          multiply(viewport, Array.from(p.ctm)),
          p.lineWidth,
          pdfjs.OPS,
          segments,
          pageArea,
        );
    for (const ctm of placed) addImage(multiply(viewport, Array.from(ctm)), images, pageArea);
  }
  return { segments, images, annotationText: [] };
}

/** An image painted with `ctm`: the unit square's place on the page. */
function addImage(ctm: Matrix, out: ImageArea[], pageArea: number): void {
  const [x1, y1] = apply(ctm, 0, 0);
  const [x2, y2] = apply(ctm, 1, 1);
  const [x3, y3] = apply(ctm, 0, 1);
  const [x4, y4] = apply(ctm, 1, 0);
  const x = Math.min(x1, x2, x3, x4);
  const y = Math.min(y1, y2, y3, y4);
  const width = Math.max(x1, x2, x3, x4) - x;
  const height = Math.max(y1, y2, y3, y4) - y;
  if (width * height > 4)
    out.push({ x, y, width, height, coverage: Math.min(1, (width * height) / pageArea) });
}

interface TextOps {
  endAnnotation: number;
  save: number;
  restore: number;
  transform: number;
  beginText: number;
  setFont: number;
  setTextMatrix: number;
  moveText: number;
  setLeadingMoveText: number;
  setLeading: number;
  nextLine: number;
  showText: number;
}

/**
 * The text an annotation's appearance shows, from its beginAnnotation op to its end: the
 * text state is followed (font, text matrix, line moves, advances) so each shown string gets
 * its place, in PDF user space like the page's own text items. Its rules and images are not
 * the page's (a form field's border is no table rule). Returns the index of the end op.
 */
function readAnnotation(
  OPS: TextOps,
  fnArray: readonly number[],
  argsArray: readonly unknown[],
  start: number,
  out: DrawnText[],
): number {
  const begin = argsArray[start] as unknown[];
  const [place, inner] = [begin[2], begin[3]];
  let ctm: Matrix = multiply(asMatrix(place), asMatrix(inner));
  const stack: Matrix[] = [];
  let text: Matrix = [1, 0, 0, 1, 0, 0];
  let [x, y, lineX, lineY, leading, size] = [0, 0, 0, 0, 0, 0];
  let font = '';
  const move = (dx: number, dy: number) => {
    lineX += dx;
    lineY += dy;
    [x, y] = [lineX, lineY];
  };
  let i = start + 1;
  for (; i < fnArray.length && fnArray[i] !== OPS.endAnnotation; i++) {
    const args = (argsArray[i] ?? []) as unknown[];
    switch (fnArray[i]) {
      case OPS.save:
        if (stack.length < 1024) stack.push(ctm);
        break;
      case OPS.restore:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.transform:
        ctm = multiply(ctm, args as number[]);
        break;
      case OPS.beginText:
        text = [1, 0, 0, 1, 0, 0];
        [x, y, lineX, lineY] = [0, 0, 0, 0];
        break;
      case OPS.setFont:
        font = String(args[0]);
        size = Math.abs(Number(args[1]) || 0);
        break;
      case OPS.setTextMatrix:
        text = asMatrix(args[0]);
        [x, y, lineX, lineY] = [0, 0, 0, 0];
        break;
      case OPS.setLeadingMoveText:
        leading = Number(args[1]) || 0;
        move(Number(args[0]) || 0, leading);
        break;
      case OPS.moveText:
        move(Number(args[0]) || 0, Number(args[1]) || 0);
        break;
      case OPS.setLeading:
        leading = -(Number(args[0]) || 0);
        break;
      case OPS.nextLine:
        move(0, leading);
        break;
      case OPS.showText: {
        let str = '';
        let advance = 0;
        for (const g of (args[0] ?? []) as (Glyph | number | null)[]) {
          if (typeof g === 'number') {
            advance -= (g / 1000) * size;
            if (g <= WORD_GAP && str && !str.endsWith(' ')) str += ' ';
          } else if (g) {
            str += typeof g.unicode === 'string' ? g.unicode : '';
            advance += ((Number(g.width) || 0) / 1000) * size;
          }
        }
        const at = multiply(multiply(ctm, text), [size, 0, 0, size, x, y]);
        const scale = Math.hypot(at[0], at[1]) / (size || 1);
        if (str.trim() && size > 0)
          out.push({
            str,
            dir: 'ltr',
            width: advance * scale,
            height: Math.hypot(at[2], at[3]),
            transform: at,
            fontName: font,
          });
        x += advance;
        break;
      }
    }
  }
  return i;
}

function asMatrix(value: unknown): Matrix {
  const m = Array.isArray(value) || ArrayBuffer.isView(value) ? Array.from(value as ArrayLike<number>) : [];
  return m.length === 6 && m.every(Number.isFinite) ? (m as Matrix) : [1, 0, 0, 1, 0, 0];
}

interface Ops {
  stroke: number;
  closeStroke: number;
  fill: number;
  eoFill: number;
  fillStroke: number;
  eoFillStroke: number;
  closeFillStroke: number;
  closeEOFillStroke: number;
}

function addPath(
  args: unknown[],
  ctm: Matrix,
  lineWidth: number,
  OPS: Ops,
  out: Segment[],
  pageArea: number,
): void {
  const op = args[0] as number;
  const buffer = (args[1] as unknown[] | undefined)?.[0];
  if (!(buffer instanceof Float32Array)) return;
  const stroked =
    op === OPS.stroke ||
    op === OPS.closeStroke ||
    op === OPS.fillStroke ||
    op === OPS.eoFillStroke ||
    op === OPS.closeFillStroke ||
    op === OPS.closeEOFillStroke;
  const filled = !stroked && (op === OPS.fill || op === OPS.eoFill);
  if (!stroked && !filled) return;
  const scale = Math.sqrt(Math.abs(ctm[0] * ctm[3] - ctm[1] * ctm[2])) || 1;
  const width = Math.max(lineWidth * scale, 0.1);
  // Points of the current subpath, transformed; a filled subpath is judged as a whole.
  let points: [number, number][] = [];
  const flush = () => {
    if (filled && points.length >= 4) addFilledRect(points, out, pageArea);
    points = [];
  };
  for (let i = 0; i < buffer.length; ) {
    const code = buffer[i++];
    if (code === MOVE) {
      flush();
      points.push(apply(ctm, buffer[i]!, buffer[i + 1]!));
      i += 2;
    } else if (code === LINE) {
      const p = apply(ctm, buffer[i]!, buffer[i + 1]!);
      i += 2;
      const prev = points[points.length - 1];
      if (stroked && prev) addRule(prev, p, width, out);
      points.push(p);
    } else if (code === CURVE || code === QUAD) {
      i += code === CURVE ? 6 : 4;
      // Curves are not rules; the subpath is no longer a rectangle.
      points = [];
    } else if (code === CLOSE) {
      const first = points[0];
      const prev = points[points.length - 1];
      if (stroked && first && prev && points.length > 1) addRule(prev, first, width, out);
      flush();
    } else {
      break;
    }
  }
  flush();
}

function addRule(a: [number, number], b: [number, number], lineWidth: number, out: Segment[]): void {
  const dx = Math.abs(a[0] - b[0]);
  const dy = Math.abs(a[1] - b[1]);
  if (dx < 0.5 && dy < 0.5) return;
  if (dy > AXIS_TOLERANCE && dx > AXIS_TOLERANCE) return;
  out.push({ x1: a[0], y1: a[1], x2: b[0], y2: b[1], lineWidth });
}

/** A filled axis-aligned rectangle: a thin one is a rule, a larger one gives its 4 edges. */
function addFilledRect(points: [number, number][], out: Segment[], pageArea: number): void {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const [x, y] of points) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  // Every corner must sit on the bounding box, or the shape is not an upright rectangle.
  for (const [x, y] of points)
    if (
      Math.min(Math.abs(x - x0), Math.abs(x - x1)) > AXIS_TOLERANCE ||
      Math.min(Math.abs(y - y0), Math.abs(y - y1)) > AXIS_TOLERANCE
    )
      return;
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 0.1 && h < 0.1) return;
  if (h <= THIN_FILL && w > h)
    out.push({ x1: x0, y1: (y0 + y1) / 2, x2: x1, y2: (y0 + y1) / 2, lineWidth: Math.max(h, 0.1) });
  else if (w <= THIN_FILL && h > w)
    out.push({ x1: (x0 + x1) / 2, y1: y0, x2: (x0 + x1) / 2, y2: y1, lineWidth: Math.max(w, 0.1) });
  else if (w * h < pageArea * 0.9) {
    out.push({ x1: x0, y1: y0, x2: x1, y2: y0, lineWidth: 0.1 });
    out.push({ x1: x0, y1: y1, x2: x1, y2: y1, lineWidth: 0.1 });
    out.push({ x1: x0, y1: y0, x2: x0, y2: y1, lineWidth: 0.1 });
    out.push({ x1: x1, y1: y0, x2: x1, y2: y1, lineWidth: 0.1 });
  }
}
