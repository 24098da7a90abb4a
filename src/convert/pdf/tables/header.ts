import type { TableCell } from '../page-content.ts';
import { isNumeric } from './text-lines.ts';

/**
 * Whether the first row reads as a header: set in bold (or ruled off, as the caller knows), or
 * all words above columns whose body is mostly numbers.
 */
export function isHeaderRow(cells: readonly TableCell[], emphasized: boolean): boolean {
  const first = cells.filter((c) => c.row === 0 && c.text);
  if (!first.length) return false;
  if (emphasized) return true;
  if (first.some((c) => isNumeric(c.text))) return false;
  const numeric = new Map<number, number>();
  const total = new Map<number, number>();
  for (const c of cells) {
    if (c.row === 0 || !c.text) continue;
    total.set(c.col, (total.get(c.col) ?? 0) + 1);
    if (isNumeric(c.text)) numeric.set(c.col, (numeric.get(c.col) ?? 0) + 1);
  }
  for (const [col, n] of total) if (n >= 2 && (numeric.get(col) ?? 0) >= n * 0.6) return true;
  return false;
}
