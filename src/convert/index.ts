import type { FormatId } from '../detect/formats.ts';
import type { Converter } from './converter.ts';
import { convertCsv } from './csv/convert-csv.ts';
import { convertDoc } from './doc/convert-doc.ts';
import { convertDocx } from './docx/convert-docx.ts';
import { convertEpub } from './epub/convert-epub.ts';
import { convertHtml } from './html/convert-html.ts';
import { convertOdp } from './odp/convert-odp.ts';
import { convertOdt } from './odt/convert-odt.ts';
import { convertPdf } from './pdf/convert-pdf.ts';
import { convertPpt } from './ppt/convert-ppt.ts';
import { convertPptx } from './pptx/convert-pptx.ts';
import { convertRtf } from './rtf/convert-rtf.ts';
import { convertSpreadsheet } from './spreadsheet/convert-spreadsheet.ts';

/** The one place a format plugs in: its converter, producing the shared document model. */
export const converters: Partial<Record<FormatId, Converter>> = {
  html: convertHtml,
  csv: convertCsv,
  doc: convertDoc,
  docx: convertDocx,
  docm: convertDocx,
  odt: convertOdt,
  odp: convertOdp,
  epub: convertEpub,
  rtf: convertRtf,
  xlsx: convertSpreadsheet,
  xlsm: convertSpreadsheet,
  xlsb: convertSpreadsheet,
  xls: convertSpreadsheet,
  ods: convertSpreadsheet,
  ppt: convertPpt,
  pdf: convertPdf,
  pptx: convertPptx,
  pptm: convertPptx,
};

export const implementedFormats: ReadonlySet<FormatId> = new Set(Object.keys(converters) as FormatId[]);
