/**
 * Sheet parts rewritten before SheetJS reads them, against what it would do with hostile ones:
 * - a hyperlink's range is expanded by SheetJS into one cell object per covered cell, so one
 *   `<hyperlink ref="A1:XFD1048576">` is 17 billion objects; ranges are cut to their top-left
 *   cell (the cell that holds a merged range's text, which is what the link is attached to);
 * - a part beyond the remaining byte budget is cut after its last complete row, so that the
 *   cells SheetJS builds stay bounded (see limits.spreadsheetSheetBytes);
 * - a truncated XML part (no `</sheetData>`, which SheetJS needs to read any row) is closed
 *   after its last complete row.
 */

export interface Defused {
  bytes: Uint8Array;
  /** Set when the part was cut short to fit `budget`. */
  cut: boolean;
  /** Set when the part itself ended early (damaged or truncated). */
  truncated?: boolean;
}

/** Whether the sheet data element is closed (`</sheetData>`, `<sheetData/>`) or absent. */
function sheetDataClosed(buffer: Buffer): boolean {
  if (buffer.includes('</sheetData>') || buffer.includes('<sheetData/>')) return true;
  if (!buffer.includes('sheetData')) return true;
  return /<\/\w+:sheetData>|<\w+:sheetData\s*\/>|<sheetData\s+\/>/.test(buffer.toString('latin1'));
}

const HYPERLINK_RANGE = /(<(?:\w+:)?hyperlink\b[^>]*?\bref\s*=\s*["'])([^"':]*):[^"']*(["'])/g;

/** An XML worksheet (XLSX, XLSM): hyperlink ranges collapsed, cut at a row end past `budget`. */
export function defuseSheetXml(bytes: Uint8Array, budget: number): Defused {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let cut = false;
  let truncated = false;
  let data = buffer;
  if (buffer.length > budget) {
    cut = true;
    data = cutXmlAtRow(buffer, budget);
  } else if (!sheetDataClosed(buffer)) {
    truncated = true;
    data = cutXmlAtRow(buffer, buffer.length);
  }
  // Cell text cannot hold a raw `<`, so hyperlink tags are only matched where they are; the
  // region starts a little before the first mention, which may be in text (harmlessly early).
  const mention = data.indexOf('hyperlink');
  if (mention === -1) return { bytes: data, cut, truncated };
  const tailStart = Math.max(0, mention - 64);
  // Markup is ASCII: latin1 round-trips every byte, text included.
  const tail = data.subarray(tailStart).toString('latin1').replace(HYPERLINK_RANGE, '$1$2$3');
  return {
    bytes: Buffer.concat([data.subarray(0, tailStart), Buffer.from(tail, 'latin1')]),
    cut,
    truncated,
  };
}

/** The part up to its last `</row>` within `budget`, closed so that it still parses. */
function cutXmlAtRow(buffer: Buffer, budget: number): Buffer {
  const open = /<(\w+:)?sheetData\b/.exec(
    buffer.subarray(0, Math.min(buffer.length, 1 << 20)).toString('latin1'),
  );
  const prefix = open?.[1] ?? '';
  const end = buffer.lastIndexOf(`</${prefix}row>`, budget);
  const keep = end === -1 ? (open ? open.index : 0) : end + `</${prefix}row>`.length;
  const close = open ? `</${prefix}sheetData></${prefix}worksheet>` : '';
  return Buffer.concat([buffer.subarray(0, keep), Buffer.from(close, 'latin1')]);
}

/** BIFF12 record type of a hyperlink (BrtHLink), whose first 16 bytes are its cell range. */
const BRT_HLINK = 0x01ee;

/**
 * A binary worksheet (XLSB): walks the records ([MS-XLSB] 2.1.4: variable-length type and
 * size), collapses every BrtHLink range (rwFirst, rwLast, colFirst, colLast as 32-bit values)
 * and cuts before the first record that would pass `budget`.
 */
export function defuseSheetBin(bytes: Uint8Array, budget: number): Defused {
  const out = Buffer.from(bytes.slice());
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  let p = 0;
  while (p < out.length) {
    const start = p;
    let type = out[p++]!;
    if (type & 0x80) type = (type & 0x7f) | ((out[p++]! & 0x7f) << 7);
    let size = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = out[p++];
      if (b === undefined) break;
      size |= (b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    const end = p + size;
    if (end > budget) return { bytes: out.subarray(0, start), cut: true };
    if (end > out.length) return { bytes: out.subarray(0, start), cut: false };
    if (type === BRT_HLINK && size >= 16) {
      view.setUint32(p + 4, view.getUint32(p, true), true);
      view.setUint32(p + 12, view.getUint32(p + 8, true), true);
    }
    p = end;
  }
  return { bytes: out, cut: false };
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
