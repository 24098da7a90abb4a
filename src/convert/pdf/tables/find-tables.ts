import type { Box, DetectedTable, PageContent } from '../page-content.ts';
import { findRuledTables } from './ruled.ts';
import { findRulings } from './rulings.ts';
import { findUnruledTables } from './unruled.ts';

/**
 * Tables on one page: grids drawn with rules first, then borderless tables found by column
 * alignment among the text the ruled tables left. Sorted top to bottom.
 */
export function findTables(content: PageContent): DetectedTable[] {
  const { runs } = content;
  const rulings = findRulings(content.segments);
  const all = runs.map((_, i) => i).filter((i) => runs[i]!.text.trim() !== '');
  const ruled = findRuledTables(runs, rulings, all);
  const taken = new Uint8Array(runs.length);
  for (const t of ruled) for (const i of t.runs) taken[i] = 1;
  const free = all.filter((i) => !taken[i] && !ruled.some((t) => inside(t.box, runs[i]!)));
  const unruled = findUnruledTables(runs, free, rulings.horizontal);
  return [...ruled, ...unruled].sort((a, b) => a.box.y - b.box.y);
}

function inside(box: Box, r: Box): boolean {
  const cx = r.x + r.width / 2;
  const cy = r.y + r.height / 2;
  return cx >= box.x && cx <= box.x + box.width && cy >= box.y && cy <= box.y + box.height;
}
