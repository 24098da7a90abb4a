import type { ParsingOptions, WorkBook } from '@e965/xlsx';
import * as XLSX from '@e965/xlsx';

/**
 * The SheetJS entry points used here. `parse_zip` (a workbook from an already-opened package)
 * and `parse_xlscfb` (a workbook from a BIFF stream) are exported by the library but missing
 * from its type declarations; they let us hand SheetJS bytes we have vetted ourselves instead
 * of letting it unpack the upload.
 */
export interface SheetJsEntry {
  name: string;
  type: number;
  content?: Uint8Array;
}

/** The shape of SheetJS's in-memory package (its CFB container). */
export interface SheetJsContainer {
  FullPaths: string[];
  FileIndex: SheetJsEntry[];
}

interface SheetJsInternals {
  parse_zip(zip: SheetJsContainer, opts: ParsingOptions): WorkBook;
  parse_xlscfb(data: Buffer, opts: ParsingOptions): WorkBook;
}

const internals = XLSX as unknown as SheetJsInternals;

/**
 * What we read: formatted text (`w`), the number format (`z`, to recognise locale dates),
 * hyperlinks and comments; no formulas (cached results
 * are what the user sees), no rich-text HTML, no empty stub cells, no macros; dense rows
 * (an array per row rather than an object keyed by "A1" addresses) for memory.
 */
const OPTIONS: ParsingOptions = {
  type: 'buffer',
  dense: true,
  cellFormula: false,
  cellHTML: false,
  cellText: true,
  cellNF: true,
  cellDates: false,
  cellStyles: false,
  sheetStubs: false,
  bookVBA: false,
  bookDeps: false,
  bookFiles: false,
};

export function parsePackage(container: SheetJsContainer): WorkBook {
  return internals.parse_zip(container, { ...OPTIONS });
}

export function parseBiff(stream: Buffer): WorkBook {
  return internals.parse_xlscfb(stream, { ...OPTIONS });
}
