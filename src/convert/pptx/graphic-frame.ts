import type { Element, ElementContent } from 'hast';
import { limits } from '../../limits.ts';
import { child, childrenNamed, descendant, type XmlElement } from '../package/xml.ts';
import type { Deck, Part } from './deck.ts';

/**
 * What a graphic frame shows besides tables: a chart's title and data (from the values the
 * chart part caches), and SmartArt's text (the diagram data part's points, nested as the
 * diagram's connections nest them).
 */

function el(tagName: string, children: ElementContent[], properties: Element['properties'] = {}): Element {
  return { type: 'element', tagName, properties, children };
}

function text(value: string): ElementContent {
  return { type: 'text', value };
}

const BREAK: XmlElement = { name: '#break', attrs: {}, children: [] };

/** Runs' text of DrawingML paragraphs (and chart values), paragraphs joined by spaces. */
function drawingText(root: XmlElement): string {
  let out = '';
  const stack: XmlElement[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === BREAK) out += ' ';
    else if (node.name === 'a:t' || node.name === 'c:v') {
      for (const c of node.children) if (typeof c === 'string') out += c;
    } else {
      if (node.name === 'a:p' || node.name === 'a:br') stack.push(BREAK);
      for (let i = node.children.length - 1; i >= 0; i--) {
        const c = node.children[i]!;
        if (typeof c !== 'string') stack.push(c);
      }
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** The points of a category or value reference, by index (c:strCache, c:numCache, literals, multi-level). */
function cachedPoints(ref: XmlElement | undefined): Map<number, string> {
  const points = new Map<number, string>();
  if (!ref) return points;
  const cache =
    descendant(ref, 'c:strCache') ??
    descendant(ref, 'c:numCache') ??
    descendant(ref, 'c:lvl') ??
    child(ref, 'c:strLit') ??
    child(ref, 'c:numLit');
  for (const pt of cache ? childrenNamed(cache, 'c:pt') : []) {
    const idx = Number.parseInt(pt.attrs.idx ?? '', 10);
    const v = child(pt, 'c:v');
    if (idx >= 0 && v) points.set(idx, drawingText(v));
  }
  return points;
}

interface Series {
  name: string;
  categories: Map<number, string>;
  values: Map<number, string>;
}

/** Rows of a chart's data table: every point index some series has, in order, within the cell budget. */
function rowIndexes(series: readonly Series[], warnings: string[]): number[] {
  const indexes = new Set<number>();
  for (const s of series) {
    for (const i of s.categories.keys()) indexes.add(i);
    for (const i of s.values.keys()) indexes.add(i);
  }
  const rows = [...indexes].sort((a, b) => a - b);
  const most = Math.floor(limits.chartTableCells / (series.length + 1));
  if (rows.length <= most) return rows;
  warnings.push(`A chart has more data than Quire shows; its table was cut after ${most} rows.`);
  return rows.slice(0, most);
}

/** A chart part (c:chartSpace) → its title and a table of categories by series. */
export function chartBlocks(chart: Part, warnings: string[]): ElementContent[] {
  const body = child(chart.root, 'c:chart');
  if (!body) return [];
  const out: ElementContent[] = [];
  const title = child(body, 'c:title');
  const titleText = title ? drawingText(title) : '';
  if (titleText) out.push(el('p', [text(titleText)]));
  const plot = child(body, 'c:plotArea');
  const series: Series[] = [];
  for (const kind of plot?.children ?? []) {
    if (typeof kind === 'string' || !kind.name.endsWith('Chart')) continue;
    for (const ser of childrenNamed(kind, 'c:ser')) {
      const tx = child(ser, 'c:tx');
      series.push({
        name: tx ? drawingText(tx) : '',
        categories: cachedPoints(child(ser, 'c:cat') ?? child(ser, 'c:xVal')),
        values: cachedPoints(child(ser, 'c:val') ?? child(ser, 'c:yVal')),
      });
    }
  }
  if (series.length === 0) return out;
  const categories = series.find((s) => s.categories.size > 0)?.categories ?? new Map<number, string>();
  const head = el('tr', [el('th', []), ...series.map((s) => el('th', [text(s.name)]))]);
  const rows = rowIndexes(series, warnings).map((r) =>
    el('tr', [
      el('td', [text(categories.get(r) ?? '')]),
      ...series.map((s) => el('td', [text(s.values.get(r) ?? '')])),
    ]),
  );
  out.push(el('table', [el('thead', [head]), el('tbody', rows)]));
  return out;
}

/** Depth past which SmartArt nesting is flattened; real diagrams nest a few levels. */
const MAX_DIAGRAM_DEPTH = 16;

/** SmartArt (the diagram data part a dgm:relIds names) → nested lists of its node texts. */
export function diagramBlocks(deck: Deck, from: Part, relIds: XmlElement): ElementContent[] {
  const data = deck.related(from, relIds.attrs['r:dm']);
  const ptLst = data && child(data.root, 'dgm:ptLst');
  if (!data || !ptLst || !deck.firstShowing(data)) return [];
  const texts = new Map<string, string>();
  let root: string | undefined;
  for (const pt of childrenNamed(ptLst, 'dgm:pt')) {
    const id = pt.attrs.modelId ?? '';
    const type = pt.attrs.type ?? 'node';
    if (type === 'doc') root ??= id;
    if (type !== 'node' && type !== 'asst') continue;
    const t = child(pt, 'dgm:t');
    texts.set(id, t ? drawingText(t) : '');
  }
  const children = new Map<string, { id: string; order: number }[]>();
  const cxnLst = child(data.root, 'dgm:cxnLst');
  for (const cxn of cxnLst ? childrenNamed(cxnLst, 'dgm:cxn') : []) {
    if ((cxn.attrs.type ?? 'parOf') !== 'parOf') continue;
    const src = cxn.attrs.srcId ?? '';
    const list = children.get(src) ?? [];
    list.push({ id: cxn.attrs.destId ?? '', order: Number(cxn.attrs.srcOrd ?? 0) });
    children.set(src, list);
  }
  const seen = new Set<string>();
  const list = (parent: string, depth: number): Element | undefined => {
    const items: Element[] = [];
    const kids = (children.get(parent) ?? []).sort((a, b) => a.order - b.order);
    for (const { id } of kids) {
      if (seen.has(id) || !texts.has(id)) continue;
      seen.add(id);
      const value = texts.get(id)!;
      const sub = depth < MAX_DIAGRAM_DEPTH ? list(id, depth + 1) : undefined;
      if (!value && !sub) continue;
      items.push(el('li', [...(value ? [text(value)] : []), ...(sub ? [sub] : [])]));
    }
    return items.length > 0 ? el('ul', items) : undefined;
  };
  const nested = root === undefined ? undefined : list(root, 0);
  if (nested) return [nested];
  // Without a connection list, the points in file order.
  const flat = [...texts.values()].filter(Boolean).map((v) => el('li', [text(v)]));
  return flat.length > 0 ? [el('ul', flat)] : [];
}
