/**
 * Sheet data cut to a byte budget (see limits.spreadsheetSheetBytes and
 * limits.spreadsheetOdsContentBytes) after its last complete row, so that the cells a reader
 * builds stay bounded whatever the file claims.
 */

export interface Defused {
  bytes: Uint8Array;
  /** Set when the part was cut short to fit `budget`. */
  cut: boolean;
}

/** An XML worksheet (XLSX, XLSM) up to its last `</row>` within `budget`. */
export function cutXmlAtRow(bytes: Uint8Array, budget: number): Uint8Array {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = buffer.subarray(0, Math.min(buffer.length, 1 << 20)).toString('latin1');
  const prefix = /<(\w+:)?sheetData\b/.exec(head)?.[1] ?? '';
  const end = buffer.lastIndexOf(`</${prefix}row>`, budget);
  return buffer.subarray(0, end === -1 ? 0 : end + `</${prefix}row>`.length);
}

const ODS_ROW_END = '</table:table-row>';
const ODS_CLOSE = '</table:table></office:spreadsheet></office:body></office:document-content>';

/** An OpenDocument content.xml cut after its last complete row within `budget`, then closed. */
export function cutOdsContent(bytes: Uint8Array, budget: number): Defused {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length <= budget) return { bytes: buffer, cut: false };
  const end = buffer.lastIndexOf(ODS_ROW_END, budget);
  if (end === -1) return { bytes: Buffer.alloc(0), cut: true };
  return {
    bytes: Buffer.concat([buffer.subarray(0, end + ODS_ROW_END.length), Buffer.from(ODS_CLOSE, 'latin1')]),
    cut: true,
  };
}
