import { type CellObject, utils, type WorkSheet } from '@e965/xlsx';
import type { Rows } from './sheet-layout.ts';

/**
 * A sheet's cells as rows of cells. SheetJS is asked for dense sheets (`!data`); a reader that
 * ignored the request still gets its cells, gathered from their "A1" keys.
 */
export function sheetRows(ws: WorkSheet): Rows {
  const dense = (ws as { '!data'?: Rows })['!data'];
  if (dense) return dense;
  const rows: Rows = [];
  for (const key of Object.keys(ws)) {
    if (key.startsWith('!')) continue;
    const { r, c } = utils.decode_cell(key);
    if (r < 0 || c < 0) continue;
    const row = rows[r] ?? [];
    rows[r] = row;
    row[c] = ws[key] as CellObject;
  }
  return rows;
}
