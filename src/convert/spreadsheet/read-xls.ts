import type { WorkBook } from '@e965/xlsx';
import { rawBiffVersion } from '../../detect/sniff.ts';
import type { DocumentMetadata } from '../../document/model.ts';
import { limits } from '../../limits.ts';
import { ConversionError } from '../converter.ts';
import { openOleContainer } from '../doc/ole-container.ts';
import { summaryMetadata } from '../doc/ole-property-set.ts';
import { BIFF8, readBiff8 } from './biff8.ts';
import { fromSheetJs, parseBiff } from './sheetjs.ts';
import type { ReadWorkbook } from './workbook.ts';

/**
 * An Excel workbook in an OLE container, or an Excel 2.x-4.0 worksheet (BIFF2-4), which is its
 * records alone. BIFF8 (Excel 97-2003, nearly every .xls) is read by biff8.ts; older BIFF
 * (Excel 2.x to 95) by SheetJS, which gets only the workbook stream after one pass over its
 * record headers ([MS-XLS] 2.1.4: 2-byte type, 2-byte size) that
 * - refuses a password-protected workbook (a FILEPASS record),
 * - counts cells, refusing a stream that claims more than limits.spreadsheetCells,
 * - collapses hyperlink ranges to their first cell: SheetJS visits every cell of the range,
 *   65536 x 256 of them for one hostile record.
 */
const FILEPASS = 0x002f;
const HLINK = 0x01b8;
const HLINK_TOOLTIP = 0x0800;
/**
 * Records holding one cell: FORMULA, RSTRING, LABELSST, NUMBER, LABEL, BOOLERR, RK, and the
 * BIFF2-4 ones: INTEGER, NUMBER, LABEL, BOOLERR (BIFF2), FORMULA (BIFF3, BIFF4).
 */
const SINGLE_CELL = new Set([
  0x0006, 0x00d6, 0x00fd, 0x0203, 0x0204, 0x0205, 0x027e, 0x0002, 0x0003, 0x0004, 0x0005, 0x0206, 0x0406,
]);
/** MULRK: row, first column, then 6 bytes per cell, then the last column. */
const MULRK = 0x00bd;

function vetStream(stream: Buffer): void {
  let cells = 0;
  for (let p = 0; p + 4 <= stream.length; ) {
    const type = stream.readUInt16LE(p);
    const size = stream.readUInt16LE(p + 2);
    const data = p + 4;
    if (data + size > stream.length) break;
    if (type === FILEPASS) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        'The workbook is password-protected (encrypted); remove the password and upload it again.',
      );
    }
    if (SINGLE_CELL.has(type)) cells++;
    else if (type === MULRK) cells += Math.max(0, (size - 6) / 6);
    else if (type === HLINK && size >= 8) {
      stream.writeUInt16LE(stream.readUInt16LE(data), data + 2);
      stream.writeUInt16LE(stream.readUInt16LE(data + 4), data + 6);
    } else if (type === HLINK_TOOLTIP && size >= 10) {
      stream.writeUInt16LE(stream.readUInt16LE(data + 2), data + 4);
      stream.writeUInt16LE(stream.readUInt16LE(data + 6), data + 8);
    }
    if (cells > limits.spreadsheetCells) {
      throw new ConversionError(
        'RESOURCE_LIMIT',
        `The workbook holds more than ${limits.spreadsheetCells} cells (limits.spreadsheetCells); it was not converted.`,
      );
    }
    p = data + size;
  }
}

export function readXlsWorkbook(bytes: Uint8Array): ReadWorkbook {
  // Excel 2.x to 4.0 saved a worksheet's records as the file itself, without an OLE container
  // (and without properties): the file is the stream.
  if (rawBiffVersion(bytes) !== undefined) return readWorkbookStream(bytes, {});
  const container = openOleContainer(bytes, 'Excel 97-2003 workbook');
  const found = container.stream('Workbook') ?? container.stream('Book');
  if (!found) {
    throw new ConversionError('UNPARSABLE_DOCUMENT', 'The file has no Excel workbook stream.');
  }
  return readWorkbookStream(found, summaryMetadata(container.stream('\u0005SummaryInformation')));
}

function readWorkbookStream(found: Uint8Array, metadata: DocumentMetadata): ReadWorkbook {
  // BIFF8 (Excel 97 and later, BOF version 0x0600) is read by Quire; older BIFF by SheetJS.
  if (
    found.length >= 6 &&
    found[0] === 0x09 &&
    found[1] === 0x08 &&
    (found[4]! | (found[5]! << 8)) === BIFF8
  ) {
    return readBiff8(found, metadata);
  }
  // A copy: hyperlink records are patched in place, and SheetJS decorates the buffer it reads.
  const stream = Buffer.from(found);
  vetStream(stream);
  let wb: WorkBook;
  try {
    wb = parseBiff(stream);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/password/i.test(message)) {
      throw new ConversionError(
        'ENCRYPTED_DOCUMENT',
        'The workbook is password-protected; remove the password and upload it again.',
      );
    }
    throw new ConversionError('UNPARSABLE_DOCUMENT', `The workbook could not be read: ${message}.`);
  }
  return fromSheetJs(wb, metadata, []);
}
