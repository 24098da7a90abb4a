import type { FormatId } from '../detect/formats.ts';
import type { Converter } from './converter.ts';
import { type ConvertibleFormat, isConvertible } from './convertible.ts';
import { convertCsv } from './csv/convert-csv.ts';
import { convertDoc } from './doc/convert-doc.ts';
import { convertDocx } from './docx/convert-docx.ts';
import { convertEpub } from './epub/convert-epub.ts';
import { convertHtml } from './html/convert-html.ts';
import { convertImage } from './image/convert-image.ts';
import { convertOdp } from './odp/convert-odp.ts';
import { convertOdt } from './odt/convert-odt.ts';
import { convertPdf } from './pdf/convert-pdf.ts';
import { convertPpt } from './ppt/convert-ppt.ts';
import { convertPptx } from './pptx/convert-pptx.ts';
import { convertRtf } from './rtf/convert-rtf.ts';
import { convertSpreadsheet } from './spreadsheet/convert-spreadsheet.ts';
import { convertJson, convertXml } from './text/convert-code-text.ts';
import { convertMarkdown } from './text/convert-markdown.ts';
import { convertPlainText } from './text/convert-plain-text.ts';

/**
 * Where a format plugs in: its converter, producing the shared document model (and its name in
 * convertible.ts's list: this map's type fails to compile unless the two agree).
 */
const converters: Record<ConvertibleFormat, Converter> = {
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
  txt: convertPlainText,
  md: convertMarkdown,
  json: convertJson,
  xml: convertXml,
  png: convertImage,
  jpeg: convertImage,
  tiff: convertImage,
  gif: convertImage,
  bmp: convertImage,
  webp: convertImage,
};

/** The converter of `format`, or undefined for a format Quire does not convert. */
export function converterFor(format: FormatId): Converter | undefined {
  return isConvertible(format) ? converters[format] : undefined;
}
