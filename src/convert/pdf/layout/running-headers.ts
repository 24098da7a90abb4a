import type { PageBlock } from './types.ts';

/** Share of the page height at the top and bottom where running headers and footers sit. */
const BAND = 0.1;

/** A bare page number: "12", "- 12 -", "Page 3 of 9", "iv" (digits already normalised to #). */
const PAGE_NUMBER =
  /^[-–—\s]*(page|p\.|seite|página|pagina)?\s*(#+|[ivxlcdm]{1,7})(\s*(of|\/|de|von)\s*#+)?[-–—\s]*$/i;

function blockKey(block: PageBlock): string | undefined {
  if (block.kind !== 'text') return undefined;
  const text = block.lines.map((l) => l.text).join(' ');
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

function inBand(block: PageBlock, height: number): boolean {
  return block.box.y + block.box.height <= height * BAND || block.box.y >= height * (1 - BAND);
}

/**
 * Drops running headers, footers and page numbers: blocks in the top or bottom margin band
 * that are a bare page number, or whose text (digits normalised) recurs in the margin band
 * of another page. Works on the whole document's blocks, which by then hold only text.
 * Returns the blocks dropped, for outputs that list a page's furniture.
 */
export function dropRunningHeaders(pages: readonly { blocks: PageBlock[]; height: number }[]): PageBlock[] {
  const dropped: PageBlock[] = [];
  // A margin block's key is asked for up to three times below: work each out once.
  const keys = new Map<PageBlock, string | undefined>();
  const key = (block: PageBlock): string | undefined => {
    if (keys.has(block)) return keys.get(block);
    const k = blockKey(block);
    keys.set(block, k);
    return k;
  };
  const seen = new Map<string, Set<number>>();
  for (const [index, page] of pages.entries())
    for (const block of page.blocks) {
      if (!inBand(block, page.height)) continue;
      const k = key(block);
      if (!k) continue;
      const set = seen.get(k) ?? new Set<number>();
      set.add(index);
      seen.set(k, set);
    }
  for (const page of pages) {
    const numbers = page.blocks.filter((b) => inBand(b, page.height) && PAGE_NUMBER.test(key(b) ?? ''));
    // A bare number above or below everything else is the page number, wherever the page ends.
    const text = page.blocks.filter((b) => b.kind === 'text');
    const edges = new Set<PageBlock | undefined>([
      minBy(text, (b) => b.box.y),
      minBy(text, (b) => -(b.box.y + b.box.height)),
    ]);
    const isFurniture = (block: PageBlock): boolean => {
      // Body blocks are neither an edge nor in the band: no need to build their (long) keys.
      if (!edges.has(block) && !inBand(block, page.height)) return false;
      const k = key(block);
      if (!k) return false;
      if (edges.has(block) && /^[-–—\s]*#+[-–—\s]*$/.test(k) && text.length > 1 && alone(block, text))
        return true;
      if (!inBand(block, page.height)) return false;
      // Text on the same row as the page number belongs to the header or footer too.
      const besideNumber = numbers.some(
        (n) => n.box.y < block.box.y + block.box.height && block.box.y < n.box.y + n.box.height,
      );
      return besideNumber || PAGE_NUMBER.test(k) || (seen.get(k)?.size ?? 0) >= 2;
    };
    page.blocks = page.blocks.filter((block) => {
      if (!isFurniture(block)) return true;
      dropped.push(block);
      return false;
    });
  }
  return dropped;
}

function minBy<T>(items: readonly T[], score: (item: T) => number): T | undefined {
  let best: T | undefined;
  let min = Infinity;
  for (const item of items) {
    const s = score(item);
    if (s < min) [best, min] = [item, s];
  }
  return best;
}

/** No other block shares the block's row (a page number stands alone; a date's parts do not). */
function alone(block: PageBlock, blocks: readonly PageBlock[]): boolean {
  return blocks.every(
    (b) => b === block || b.box.y >= block.box.y + block.box.height || block.box.y >= b.box.y + b.box.height,
  );
}
