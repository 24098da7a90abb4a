import type { FormatId } from '../detect/formats.ts';
import type { Converter } from './converter.ts';
import { convertCsv } from './csv/convert-csv.ts';
import { convertDoc } from './doc/convert-doc.ts';
import { convertDocx } from './docx/convert-docx.ts';
import { convertEpub } from './epub/convert-epub.ts';
import { convertHtml } from './html/convert-html.ts';
import { convertOdt } from './odt/convert-odt.ts';
import { convertRtf } from './rtf/convert-rtf.ts';

/** The one place a format plugs in: its converter, producing the shared document model. */
export const converters: Partial<Record<FormatId, Converter>> = {
  html: convertHtml,
  csv: convertCsv,
  doc: convertDoc,
  docx: convertDocx,
  docm: convertDocx,
  odt: convertOdt,
  epub: convertEpub,
  rtf: convertRtf,
};

export const implementedFormats: ReadonlySet<FormatId> = new Set(Object.keys(converters) as FormatId[]);
