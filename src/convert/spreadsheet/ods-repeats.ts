import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';

/**
 * OpenDocument compresses runs of equal cells and rows into one element with
 * `table:number-columns-repeated` / `table:number-rows-repeated`, and SheetJS writes out every
 * copy of a non-empty cell: a few bytes can claim billions of cells. The copies are counted
 * here, on the raw XML, before SheetJS sees it. Empty cells cost SheetJS nothing (it skips
 * them), and they are what LibreOffice repeats a million times to fill a sheet, so only
 * cells with content (an element that is not self-closing) count.
 */
const TAG = /<(?:[\w.-]+:)?(table-row|table-cell)\b([^>]*?)(\/?)>|<\/(?:[\w.-]+:)?table-row>/g;
const ROWS = /number-rows-repeated\s*=\s*["'](\d+)/;
const COLUMNS = /number-columns-repeated\s*=\s*["'](\d+)/;

export function checkOdsRepeats(content: string): void {
  let rowRepeat = 1;
  let cells = 0;
  for (const m of content.matchAll(TAG)) {
    if (m[1] === undefined) {
      rowRepeat = 1;
    } else if (m[1] === 'table-row') {
      rowRepeat = Number(ROWS.exec(m[2]!)?.[1] ?? 1) || 1;
    } else if (m[3] !== '/') {
      const columns = Number(COLUMNS.exec(m[2]!)?.[1] ?? 1) || 1;
      cells += rowRepeat * columns;
      if (cells > limits.spreadsheetCells) {
        throw new ConversionError(
          'RESOURCE_LIMIT',
          `The spreadsheet expands to more than ${limits.spreadsheetCells} cells (repeated rows and columns); it was not converted.`,
        );
      }
    }
  }
}
