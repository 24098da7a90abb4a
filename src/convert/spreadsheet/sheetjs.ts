import type { ParsingOptions, WorkBook } from '@e965/xlsx';
import * as XLSX from '@e965/xlsx';
import type { DocumentMetadata } from '../../document/model.ts';
import { sheetRows } from './dense-rows.ts';
import type { ReadWorkbook } from './workbook.ts';
import { workbookMetadata } from './workbook-metadata.ts';

/**
 * The SheetJS entry points used here, for the formats it still reads (XLS, ODS). `parse_zip`
 * (a workbook from an already-opened package) and `parse_xlscfb` (a workbook from a BIFF
 * stream) are exported by the library but missing from its type declarations; they let us hand
 * SheetJS bytes we have vetted ourselves instead of letting it unpack the upload.
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

/** A workbook SheetJS read, in the shape the converter lays out. */
export function fromSheetJs(wb: WorkBook, own: DocumentMetadata, warnings: string[]): ReadWorkbook {
  const info = wb.Workbook?.Sheets ?? [];
  return {
    sheets: wb.SheetNames.map((name, i) => {
      const ws = wb.Sheets[name];
      return {
        // SheetJS leaves the name undefined for an ODS table whose start tag is damaged.
        name: name ?? '',
        hidden: Boolean(info[i]?.Hidden),
        rows: ws ? sheetRows(ws) : undefined,
        merges: ws?.['!merges'] ?? [],
      };
    }),
    metadata: workbookMetadata(wb, own),
    warnings,
  };
}
