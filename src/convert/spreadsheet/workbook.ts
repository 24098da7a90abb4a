import type { Range } from '@e965/xlsx';
import type { DocumentMetadata } from '../../document/model.ts';
import type { Rows } from './sheet-layout.ts';

/** A workbook as the converter lays it out, whichever reader produced it. */
export interface WorkbookSheet {
  name: string;
  hidden: boolean;
  /** Undefined when the sheet's part is missing or could not be read. */
  rows: Rows | undefined;
  merges: Range[];
}

export interface ReadWorkbook {
  /** In workbook order. */
  sheets: WorkbookSheet[];
  metadata: DocumentMetadata;
  warnings: string[];
}
