import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import { convert } from '../helpers/convert.ts';

/**
 * Excel 2.x, 3.0 and 4.0 worksheets (BIFF2, BIFF3, BIFF4), written here record by record as
 * those versions of Excel saved them: the records are the file, with no OLE container around
 * them. Each record is a 2-byte type, a 2-byte size and its data ([MS-XLS] 2.1.4; the BIFF2-4
 * layouts are those of OpenOffice's "Excel File Format" documentation).
 */
type Value = string | number | boolean | null;

function record(type: number, ...data: Buffer[]): Buffer {
  const body = Buffer.concat(data);
  const head = Buffer.alloc(4);
  head.writeUInt16LE(type, 0);
  head.writeUInt16LE(body.length, 2);
  return Buffer.concat([head, body]);
}

function u16(...values: number[]): Buffer {
  const out = Buffer.alloc(2 * values.length);
  for (const [i, v] of values.entries()) out.writeUInt16LE(v, 2 * i);
  return out;
}

function worksheet(biff: 2 | 3 | 4, rows: Value[][], extra: Buffer[] = []): Buffer {
  const biff2 = biff === 2;
  const width = Math.max(...rows.map((row) => row.length));
  const out = [
    // BOF: version (unused), sheet type 0x0010 (worksheet), and in BIFF3-4 two unused bytes.
    biff2 ? record(0x0009, u16(0x0002, 0x0010)) : record(biff === 3 ? 0x0209 : 0x0409, u16(0, 0x0010, 0)),
    ...extra,
    // DIMENSIONS: first row, last row + 1, first column, last column + 1.
    biff2 ? record(0x0000, u16(0, rows.length, 0, width)) : record(0x0200, u16(0, rows.length, 0, width, 0)),
  ];
  for (const [r, row] of rows.entries()) {
    for (const [c, value] of row.entries()) {
      if (value === null) continue;
      // A cell starts with its row and column, then 3 attribute bytes (BIFF2) or an XF index.
      const at = biff2 ? Buffer.concat([u16(r, c), Buffer.alloc(3)]) : u16(r, c, 0);
      if (typeof value === 'string') {
        const text = Buffer.from(value, 'latin1');
        out.push(
          biff2
            ? record(0x0004, at, Buffer.from([text.length]), text) // LABEL, 8-bit length
            : record(0x0204, at, u16(text.length), text), // LABEL, 16-bit length
        );
      } else if (typeof value === 'boolean') {
        out.push(record(biff2 ? 0x0005 : 0x0205, at, Buffer.from([value ? 1 : 0, 0]))); // BOOLERR
      } else if (Number.isInteger(value) && value >= 0 && value < 0x4000_0000) {
        if (biff2)
          out.push(record(0x0002, at, u16(value))); // INTEGER
        else {
          const rk = Buffer.alloc(4);
          rk.writeInt32LE((value << 2) | 2); // RK: an integer, shifted past its two flag bits
          out.push(record(0x027e, at, rk));
        }
      } else {
        const number = Buffer.alloc(8);
        number.writeDoubleLE(value);
        out.push(record(biff2 ? 0x0003 : 0x0203, at, number)); // NUMBER
      }
    }
  }
  out.push(record(0x000a)); // EOF
  return Buffer.concat(out);
}

const stock: Value[][] = [
  ['Item', 'Count', 'Price', 'In stock'],
  ['Bolt', 120, 0.25, true],
  ['Washer, zinc', 7, 1.5, false],
  [],
  ['Checked by', 'José'],
];
const stockMarkdown = [
  '| Item | Count | Price | In stock |',
  '| --- | --- | --- | --- |',
  '| Bolt | 120 | 0.25 | TRUE |',
  '| Washer, zinc | 7 | 1.5 | FALSE |',
  '',
  '| Checked by | José |',
  '| --- | --- |',
].join('\n');

describe('Excel 2.x-4.0 worksheets (BIFF2, BIFF3, BIFF4: records without an OLE container)', () => {
  async function parsed(bytes: Uint8Array, filename: string): Promise<Record<string, any>> {
    return convert({ bytes, filename });
  }

  for (const biff of [2, 3, 4] as const) {
    it(`reads a BIFF${biff} worksheet: its labels, integers, numbers and booleans, one table per block`, async () => {
      const data = await parsed(worksheet(biff, stock), `stock-biff${biff}.xls`);
      // A worksheet has no sheet name: it reads as a workbook's lone default sheet, without a heading.
      assert.equal(data.markdown, stockMarkdown);
      assert.equal(data.metadata.contentType, 'application/vnd.ms-excel');
      assert.equal(data.warning, undefined);
    });
  }

  it('reads a BIFF2 worksheet SheetJS writes (with its FORMAT and XF records)', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([
      ['City', 'Population'],
      ['Oslo', 709037],
      ['Bergen', 291940],
    ]);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, sheet, 'Cities');
    const bytes = new Uint8Array(XLSX.write(book, { bookType: 'biff2', type: 'buffer' }));
    const data = await parsed(bytes, 'cities.xls');
    assert.equal(
      data.markdown,
      '| City | Population |\n| --- | --- |\n| Oslo | 709037 |\n| Bergen | 291940 |',
    );
  });

  it('is recognised by its bytes: with no name, or under a wrong one', async () => {
    const bytes = worksheet(4, stock);
    const unnamed = await parsed(bytes, 'upload');
    assert.equal(unnamed.markdown, stockMarkdown);
    const misnamed = await parsed(bytes, 'stock.xlsx');
    assert.equal(misnamed.markdown, stockMarkdown);
    assert.match(misnamed.warning, /XLS/);
  });

  it('refuses a password-protected one (FILEPASS) and bytes that only start like one', async () => {
    const locked = worksheet(4, stock, [record(0x002f, u16(0x1234, 0x5678))]);
    await assert.rejects(convert({ bytes: locked, filename: 'locked.xls' }), { code: 'ENCRYPTED_DOCUMENT' });
    // A BIFF4 BOF type with the wrong record size, and one naming no sheet type Excel writes.
    for (const bof of [record(0x0409, u16(0, 0x0010)), record(0x0409, u16(0, 0x7777, 0))]) {
      const junk = Buffer.concat([bof, Buffer.alloc(64)]);
      await assert.rejects(convert({ bytes: junk, filename: 'junk.xls' }), { code: 'UNSUPPORTED_FILE_TYPE' });
    }
  });
});
