import type { RunCell } from './stacked-rows.ts';

/**
 * Columns that hold no text of their own: every cell in them is empty or spans a neighbour
 * too. Grids ruled with a narrow strip between two groups of columns have one; the cells that
 * reach into it belong to the column beside it. Each goes, and the spans over it shrink.
 */
export function dropSpacerColumns(
  cells: readonly RunCell[],
  cols: number,
): { cells: RunCell[]; cols: number } {
  const own = new Uint8Array(cols);
  for (const c of cells) if (c.colSpan === 1 && c.text) own[c.col] = 1;
  const spacers = [...own.keys()].filter((c) => !own[c]);
  if (spacers.length === 0 || cols - spacers.length < 2) return { cells: [...cells], cols };
  const before = (col: number) => spacers.filter((s) => s < col).length;
  const out: RunCell[] = [];
  for (const c of cells) {
    const end = c.col + c.colSpan;
    const col = c.col - before(c.col);
    const colSpan = end - c.col - (before(end) - before(c.col));
    // An empty cell of the strip alone goes with it.
    if (colSpan < 1) continue;
    out.push({ ...c, col, colSpan });
  }
  return { cells: out, cols: cols - spacers.length };
}
