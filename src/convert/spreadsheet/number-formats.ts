import { type CellObject, SSF } from '@e965/xlsx';

/**
 * Cell values as the user sees them, for the workbooks Quire reads itself (XLSX, XLSM, XLSB,
 * BIFF8 XLS): a cell's style names a number format, SheetJS's SSF applies it. Only SSF is
 * borrowed from SheetJS: its format engine is the part that took years to get right, while
 * its readers cost 3-5x our own in time (see read-workbook-package.ts).
 */

/**
 * The formats a workbook may use by id without defining them (ECMA-376 §18.8.30, and the
 * locale-dependent ids as Excel shows them in the US locale, which is how SheetJS resolves
 * them too).
 */
const BUILT_IN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  5: '"$"#,##0_);\\("$"#,##0\\)',
  6: '"$"#,##0_);[Red]\\("$"#,##0\\)',
  7: '"$"#,##0.00_);\\("$"#,##0.00\\)',
  8: '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  27: 'm/d/yy',
  28: 'm/d/yy',
  29: 'm/d/yy',
  30: 'm/d/yy',
  31: 'm/d/yy',
  32: 'h:mm:ss',
  33: 'h:mm:ss',
  34: 'h:mm:ss',
  35: 'h:mm:ss',
  36: 'm/d/yy',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  41: '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)',
  42: '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)',
  43: '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
  44: '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
  50: 'm/d/yy',
  51: 'm/d/yy',
  52: 'm/d/yy',
  53: 'm/d/yy',
  54: 'm/d/yy',
  55: 'm/d/yy',
  56: 'm/d/yy',
  57: 'm/d/yy',
  58: 'm/d/yy',
  59: '0',
  60: '0.00',
  61: '#,##0',
  62: '#,##0.00',
  63: '"$"#,##0_);\\("$"#,##0\\)',
  64: '"$"#,##0_);[Red]\\("$"#,##0\\)',
  65: '"$"#,##0.00_);\\("$"#,##0.00\\)',
  66: '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)',
  67: '0%',
  68: '0.00%',
  69: '# ?/?',
  70: '# ??/??',
  71: 'm/d/yy',
  72: 'm/d/yy',
  73: 'd-mmm-yy',
  74: 'd-mmm',
  75: 'mmm-yy',
  76: 'h:mm',
  77: 'h:mm:ss',
  78: 'm/d/yy h:mm',
  79: 'mm:ss',
  80: '[h]:mm:ss',
  81: 'mmss.0',
};

/** Excel's cell error codes (BErr in BIFF8 and BIFF12) as it shows them. */
export const ERROR_TEXT: Record<number, string> = {
  0: '#NULL!',
  7: '#DIV/0!',
  15: '#VALUE!',
  23: '#REF!',
  29: '#NAME?',
  36: '#NUM!',
  42: '#N/A',
  43: '#GETTING_DATA',
};

export const ERROR_CODE: Record<string, number> = Object.fromEntries(
  Object.entries(ERROR_TEXT).map(([code, text]) => [text, Number(code)]),
);

/** Google Sheets writes `d.m`, which SSF reads as a decimal; what it means is day.month. */
const REPAIRED: Record<string, string> = { 'd.m': 'd\\.m' };

const GENERAL = /^general$/i;
const ssf = SSF as {
  format(fmt: string, value: number | string | boolean, opts?: { date1904?: boolean }): string;
};

/** A workbook's number formats by style index, applied to its cells. */
export class CellFormatter {
  /** Format code per cell style (xf) index. */
  private readonly byStyle: string[];
  private readonly options: { date1904: boolean };

  /**
   * `formats`: the workbook's own formats by id; `styleFormats`: each cell style's format id.
   */
  constructor(formats: ReadonlyMap<number, string>, styleFormats: readonly number[], date1904: boolean) {
    this.byStyle = styleFormats.map((id) => {
      const code = formats.get(id) ?? BUILT_IN[id] ?? 'General';
      return REPAIRED[code] ?? code;
    });
    this.options = { date1904 };
  }

  /** Sets the cell's shown text (`w`) and format (`z`) from its style, as SheetJS would. */
  apply(cell: CellObject, style: number): void {
    const code = this.byStyle[style] ?? 'General';
    cell.z = code;
    if (cell.t === 'e') return;
    const v = cell.v;
    if (v === undefined || v === null || v instanceof Date) return;
    try {
      if (GENERAL.test(code)) {
        if (typeof v === 'number') cell.w = (v | 0) === v ? String(v) : ssf.format('General', v);
        else cell.w = typeof v === 'boolean' ? (v ? 'TRUE' : 'FALSE') : v;
        return;
      }
      cell.w = ssf.format(code, v, this.options);
    } catch {
      // A format SSF cannot read: the value as General, which is what the user sees in a viewer that falls back.
      cell.w = typeof v === 'number' ? ssf.format('General', v) : String(v);
    }
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const TIME_ONLY = /^(\d+):(\d+)(?::(\d+))?(\.\d+)?$/;
const DATE_TIME = /^(\d+)-(\d+)-(\d+)(?:[T ](\d+):(\d+)(?::(\d+))?(\.\d+)?)?$/;

function fraction(digits: string | undefined): number {
  return digits ? Number(`${digits.slice(1)}000`.slice(0, 3)) : 0;
}

/** ISO 8601 text as UTC milliseconds: a time of day counts from the workbook's epoch. */
function isoMs(text: string, date1904: boolean): number {
  const time = TIME_ONLY.exec(text);
  if (time) {
    const base = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 31);
    const seconds = (Number(time[1]) * 60 + Number(time[2])) * 60 + Number(time[3] ?? 0);
    return base + seconds * 1000 + fraction(time[4]);
  }
  const m = DATE_TIME.exec(text);
  if (m) {
    const [, y, mo, d, h, mi, sec, frac] = m;
    return Date.UTC(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h ?? 0),
      Number(mi ?? 0),
      Number(sec ?? 0),
      fraction(frac),
    );
  }
  return Date.parse(text);
}

/**
 * A `t="d"` cell's ISO 8601 text as the serial number Excel stores (zone-less times read as
 * UTC), Excel's 1900 leap-year bug included; undefined when it is not a date.
 */
export function serialDate(text: string, date1904: boolean): number | undefined {
  const ms = isoMs(text.trim(), date1904);
  if (Number.isNaN(ms)) return undefined;
  const days = (ms - EPOCH_1900) / DAY_MS;
  if (date1904) {
    const shifted = days - 1462;
    return shifted < -1402 ? shifted - 1 : shifted;
  }
  return days < 60 ? days - 1 : days;
}
