import { type CellObject, SSF } from '@e965/xlsx';
import { ERROR_TEXT } from './number-formats.ts';

/**
 * A cell as the user sees it: SheetJS's formatted text (`w`: number formats, dates,
 * percentages, currency applied; a formula's cached result), booleans as TRUE/FALSE, errors
 * as their display code.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\r]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/**
 * Excel's built-in short date formats (ids 14 and 22) follow the system locale; SheetJS gives
 * them as `m/d/yy`, where Excel in the default (US) locale shows a four-digit year.
 */
const SHORT_DATE = 'm/d/yy';
const SHORT_DATE_TIME = 'm/d/yy h:mm';

const NON_BLANK = /\S/;

const format = SSF as { format(fmt: string, value: number): string };

function raw(cell: CellObject): string {
  switch (cell.t) {
    case 'z':
      return '';
    case 'b':
      return cell.v ? 'TRUE' : 'FALSE';
    case 'e':
      return cell.w ?? (typeof cell.v === 'number' ? (ERROR_TEXT[cell.v] ?? '#ERROR') : '#ERROR');
    default: {
      if ((cell.z === SHORT_DATE || cell.z === SHORT_DATE_TIME) && typeof cell.v === 'number') {
        return format.format(cell.z === SHORT_DATE ? 'm/d/yyyy' : 'm/d/yyyy h:mm', cell.v);
      }
      if (cell.w !== undefined) return cell.w;
      if (cell.v === undefined || cell.v === null) return '';
      return cell.v instanceof Date ? cell.v.toISOString() : String(cell.v);
    }
  }
}

export function cellText(cell: CellObject | undefined): string {
  if (!cell) return '';
  const text = raw(cell);
  return CONTROL.test(text) ? text.replace(/\r\n?/g, '\n').replace(CONTROLS, '') : text;
}

/** Whether the cell shows anything, without building its text where that is not needed. */
export function hasText(cell: CellObject): boolean {
  if (cell.t === 'z') return false;
  if (cell.t !== 's' && cell.w === undefined) return cell.t !== 'n' || typeof cell.v === 'number';
  return NON_BLANK.test(cell.w ?? String(cell.v ?? ''));
}

/** The cell's text length, near enough to budget output by. */
export function approximateLength(cell: CellObject): number {
  return cell.w?.length ?? 8;
}
