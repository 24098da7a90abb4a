import { toText } from 'hast-util-to-text';
import type { PageBlockInfo, PageInfo } from '../../../document/model.ts';
import type { Box } from '../page-content.ts';
import type { LaidPage } from '../page-pipeline.ts';
import type { Placement } from './build-tree.ts';
import type { OcrScore, PageBlock } from './types.ts';

/**
 * Every page asked for, 1-based, with its size and whether it could be read. With
 * `placements` (from buildTree) the pages also list their blocks in reading order: the running
 * headers and footers that were left out first and last, pictures placed by position among
 * the rest. Boxes are given in the page's own frame, turned back for vertical writing.
 */
export function describePages(
  laid: readonly LaidPage[],
  count: number,
  furniture: readonly PageBlock[],
  placements: readonly Placement[] | undefined,
): PageInfo[] {
  const byIndex = new Map(laid.map((page) => [page.index, page]));
  const placed = groupByPage(placements ?? [], (p) => p.page);
  const dropped = groupByPage(furniture, (b) => b.page);
  const out: PageInfo[] = [];
  for (let index = 0; index < count; index++) {
    const page = byIndex.get(index);
    if (!page) {
      out.push({
        pageNumber: index + 1,
        width: null,
        height: null,
        status: 'failed',
        ...(placements && { blocks: [] }),
      });
      continue;
    }
    const info: PageInfo = {
      pageNumber: index + 1,
      width: round(page.width),
      height: round(page.height),
      status: 'ok',
    };
    if (placements) info.blocks = pageBlocks(page, placed.get(index) ?? [], dropped.get(index) ?? []);
    out.push(info);
  }
  return out;
}

function pageBlocks(
  page: LaidPage,
  placed: readonly Placement[],
  dropped: readonly PageBlock[],
): PageBlockInfo[] {
  const frame = pageFrame(page);
  const body: PageBlockInfo[] = [];
  for (const p of placed) {
    const content = toText(p.part).trim();
    // Text that is only spaces or invisible marks says nothing, and Markdown leaves it out.
    if (!content) continue;
    const block: PageBlockInfo = {
      type: p.type,
      label: p.level === undefined ? null : `h${p.level}`,
      bbox: frame(p.box),
      content,
      node: p.node,
      ...source(p.ocr),
    };
    if (p.part !== p.node) block.part = p.part;
    body.push(block);
  }
  // A picture is often drawn twice in one place (the image and its mask): it is one figure.
  const seen = new Set<string>();
  for (const figure of [...page.figures].sort((a, b) => a.y - b.y)) {
    const bbox = frame(figure, false);
    const key = bbox.map(Math.round).join();
    if (seen.has(key)) continue;
    seen.add(key);
    // Before the first block below its top edge in the same column, else after the text.
    const at = body.findIndex(
      (b) => b.type !== 'figure' && b.bbox[1] >= bbox[1] && b.bbox[0] < bbox[2] && bbox[0] < b.bbox[2],
    );
    const block: PageBlockInfo = {
      type: 'figure',
      label: null,
      bbox,
      content: '',
      source: 'text-layer',
      ocrConfidence: null,
    };
    body.splice(at < 0 ? body.length : at, 0, block);
  }
  const headers: PageBlockInfo[] = [];
  const footers: PageBlockInfo[] = [];
  for (const b of [...dropped].sort((a, c) => a.box.y - c.box.y || a.box.x - c.box.x)) {
    if (b.kind !== 'text') continue;
    const bbox = frame(b.box);
    const header = (bbox[1] + bbox[3]) / 2 < page.height / 2;
    const lines = b.lines;
    const ocr = lines.some((l) => l.ocr)
      ? {
          sum: lines.reduce((s, l) => s + (l.ocr?.sum ?? 0), 0),
          words: lines.reduce((s, l) => s + (l.ocr?.words ?? 0), 0),
        }
      : undefined;
    (header ? headers : footers).push({
      type: header ? 'header' : 'footer',
      label: null,
      bbox,
      content: lines
        .map((l) => l.text.trim())
        .join(' ')
        .trim(),
      ...source(ocr),
    });
  }
  return [...headers, ...body, ...footers];
}

/**
 * A box → [x0, y0, x1, y1] in the page's frame, rounded to hundredths of a point and kept on
 * the page. Layout boxes of a page set in vertical writing are in the frame it was laid out in,
 * turned a quarter (see layoutPage): they are turned back.
 */
function pageFrame(page: LaidPage): (box: Box, laidOut?: boolean) => [number, number, number, number] {
  const clampX = (v: number) => round(Math.min(Math.max(v, 0), page.width));
  const clampY = (v: number) => round(Math.min(Math.max(v, 0), page.height));
  return (box, laidOut = true) => {
    const b =
      page.vertical && laidOut
        ? { x: page.width - box.y - box.height, y: box.x, width: box.height, height: box.width }
        : box;
    return [clampX(b.x), clampY(b.y), clampX(b.x + b.width), clampY(b.y + b.height)];
  };
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

function source(ocr: OcrScore | undefined): Pick<PageBlockInfo, 'source' | 'ocrConfidence'> {
  if (!ocr) return { source: 'text-layer', ocrConfidence: null };
  const mean = Math.min(100, Math.max(0, ocr.sum / ocr.words));
  return { source: 'ocr', ocrConfidence: Math.round(mean * 10) / 1000 };
}

function groupByPage<T>(items: readonly T[], page: (item: T) => number): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const item of items) {
    const list = map.get(page(item));
    if (list) list.push(item);
    else map.set(page(item), [item]);
  }
  return map;
}
