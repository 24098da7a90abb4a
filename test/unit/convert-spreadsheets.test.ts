import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import CFB from 'cfb';
import { convert } from '../helpers/convert.ts';
import { reference, tableRows } from '../helpers/references.ts';
import { corpusFile } from '../helpers/server.ts';
import { worksheet, xlsx, type ZipEntry, zip } from '../helpers/zip.ts';

/**
 * Each row of a LibreOffice text reference (cells joined by " | ") is a row of one of the
 * Markdown's tables, empty cells at its end aside.
 */
function assertRowsOfReference(md: string, file: string): void {
  const rows = tableRows(md).map((cells) => {
    while (cells.at(-1) === '') cells.pop();
    return JSON.stringify(cells);
  });
  const expected = reference(file).trim().split('\n');
  assert.ok(expected.length > 0);
  for (const line of expected)
    assert.ok(rows.includes(JSON.stringify(line.split(' | '))), `missing row: ${line}`);
}

/** Real workbooks from the shared corpus and from a real writer (SheetJS), converted in this process. */
describe('spreadsheets', () => {
  async function dataOf(file: { bytes: Uint8Array; filename: string }): Promise<Record<string, any>> {
    return convert(file);
  }

  it('XLS: values as the user sees them (currency, percentages, dates, fractions)', async () => {
    const data = await dataOf(corpusFile('xls/tika-testEXCEL-formats.xls'));
    assert.equal(data.metadata.contentType, 'application/vnd.ms-excel');
    const md: string = data.markdown;
    // The sheet under its name; its values formatted as LibreOffice's reference shows them.
    assert.match(md, /^## Format Examples$/m);
    assertRowsOfReference(md, 'xls/tika-testEXCEL-formats.xls.expected.txt');
  });

  it('XLSX: every sheet under its name, in workbook order, first row as header', async () => {
    const file = corpusFile('xlsx/markitdown-test.xlsx');
    const md: string = (await dataOf(file)).markdown;
    // markitdown's own test vectors for this workbook.
    for (const text of JSON.parse(reference('xlsx/markitdown-test.xlsx.vectors.json')).mustInclude)
      assert.ok(md.includes(text), `missing: ${text}`);
    // The rules, checked against the workbook as another reader (SheetJS) sees it: a `##`
    // section per sheet in workbook order, each sheet's first row as its table's header.
    const workbook = XLSX.read(file.bytes);
    assert.deepEqual(
      [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]),
      workbook.SheetNames,
    );
    const sections = md.split(/^## .+$/m).slice(1);
    for (const [i, name] of workbook.SheetNames.entries()) {
      const [header, first] = XLSX.utils.sheet_to_json<unknown[]>(workbook.Sheets[name]!, { header: 1 });
      const cells = (row: unknown[]) => row.map(String).join(' | ');
      assert.ok(
        sections[i]!.includes(
          `\n| ${cells(header!)} |\n|${' --- |'.repeat(header!.length)}\n| ${cells(first!)} |\n`,
        ),
        `sheet ${name}`,
      );
    }
  });

  it('XLSX and XLSB: cell comments as notes after their table, with cell and author', async () => {
    // The rule (README): comments are listed after their table as `- CELL (author): text`. The
    // authors and texts are those of the references; the cells and the thread are the files'
    // own (xl/comments1.xml, xl/threadedComments/threadedComment1.xml with its parentId).
    const xlsxData = await dataOf(corpusFile('xlsx/docling-xlsx_comments.xlsx'));
    assert.ok(
      reference('xlsx/docling-xlsx_comments.xlsx.expected.md').includes(
        '[author: John Reviewer]: Why Python specifically?',
      ),
    );
    assert.match(
      xlsxData.markdown,
      /\| Python is great \|[^\n]*\n[\s\S]*?\nComments:\n\n- A1 \(John Reviewer\): Why Python specifically\?/,
    );
    // Threaded comments (Excel 365) under their authors' display names, replies in order.
    assert.match(
      xlsxData.markdown,
      /- F7 \(Jane Smith \(JS\)\): Minimum number of saltwater ducks\n- F7 \(Marcus Sterling \(MS\)\): I never thought it would be so low/,
    );
    const xlsb = await dataOf(corpusFile('xlsb/poi-comments.xlsb'));
    assert.equal(xlsb.metadata.contentType, 'application/vnd.ms-excel.sheet.binary.macroenabled.12');
    // The reference's second row: "Allison, Timothy B.: comment row2 (index1)".
    assert.ok(
      reference('xlsb/poi-comments.xlsb.expected.txt').includes('Allison, Timothy B.: comment row2 (index1)'),
    );
    assert.match(xlsb.markdown, /- A2 \(Allison, Timothy B\.\): comment row2 \(index1\)/);
  });

  it('XLSB and ODS: shared strings in any script, ODF tables', async () => {
    assertRowsOfReference(
      (await dataOf(corpusFile('xlsb/poi-51519.xlsb'))).markdown,
      'xlsb/poi-51519.xlsb.expected.txt',
    );
    const ods = await dataOf(corpusFile('ods/tika-LibreOfficeCalc_ods_1.3.ods'));
    assert.equal(ods.metadata.contentType, 'application/vnd.oasis.opendocument.spreadsheet');
    assertRowsOfReference(ods.markdown, 'ods/tika-LibreOfficeCalc_ods_1.3.ods.expected.txt');
  });

  /**
   * One workbook written by SheetJS as XLSX, XLSB and XLS (BIFF8): a visible sheet with
   * number formats, an error, a merged title, a link and a comment, a hidden sheet, and a
   * second visible sheet.
   */
  function writtenWorkbook(bookType: 'xlsx' | 'xlsb' | 'biff8'): Uint8Array {
    const prices = XLSX.utils.aoa_to_sheet([
      ['Quarterly prices', null, null, null],
      ['Item', 'Price', 'Share', 'Sold on'],
      ['Widget', 1234.5, 0.125, 45365],
      ['Gadget', -20, 1, 45366],
      ['Total', null, true, null],
    ]);
    prices['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 0, c: 3 } }];
    for (const ref of ['B3', 'B4']) prices[ref]!.z = '"$"#,##0.00;[Red]\\("$"#,##0.00\\)';
    for (const ref of ['C3', 'C4']) prices[ref]!.z = '0.0%';
    for (const ref of ['D3', 'D4']) prices[ref]!.z = 'yyyy-mm-dd';
    prices.B5 = { t: 'e', v: 0x07 };
    prices.A3!.l = { Target: 'https://example.com/widget' };
    prices.A4!.c = [{ a: 'Ann Auditor', t: 'Check this price' }] as XLSX.Comments;
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, prices, 'Prices');
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['hidden text']]), 'Secret');
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Note'], ['shipped late']]), 'Notes');
    wb.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 1 }, { Hidden: 0 }] };
    return XLSX.write(wb, { type: 'buffer', bookType }) as Uint8Array;
  }

  for (const [bookType, filename] of [
    ['xlsx', 'written.xlsx'],
    ['xlsb', 'written.xlsb'],
    ['biff8', 'written.xls'],
  ] as const) {
    it(`${filename}: formats, errors, merges, links and comments; hidden sheets left out`, async () => {
      const md: string = (await dataOf({ bytes: writtenWorkbook(bookType), filename })).markdown;
      assert.deepEqual(
        [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]),
        ['Prices', 'Notes'],
      );
      assert.doesNotMatch(md, /hidden text/);
      // The rules: hidden sheets are left out; a title merged over the table's width is its
      // caption, the next row its header; values read as Excel shows them under their formats
      // ("$"#,##0.00;[Red]\("$"#,##0.00\) gives $1,234.50 and ($20.00), 0.0% gives 12.5%, the
      // 1900-system serial 45365 in yyyy-mm-dd is 2024-03-14, error code 0x07 is #DIV/0!); a
      // link as a Markdown link; comments after their table as `- CELL (author): text`.
      assert.match(
        md,
        /^## Prices\n\nQuarterly prices\n\n\| Item \| Price \| Share \| Sold on \|\n\| - \| - \| - \| - \|\n/m,
      );
      assert.match(
        md,
        /^\| \[Widget\]\(https:\/\/example\.com\/widget\) \| \$1,234\.50 \| 12\.5% \| 2024-03-14 \|$/m,
      );
      assert.match(md, /^\| Gadget \| \(\$20\.00\) \| 100\.0% \| 2024-03-15 \|$/m);
      assert.match(md, /^\| Total \| #DIV\/0! \| TRUE \| \|$/m);
      assert.match(md, /Comments:\n\n- A4 \(Ann Auditor\): Check this price/);
      assert.match(md, /^\| Note \|\n\| --- \|\n\| shipped late \|$/m);
    });
  }

  it('a sheet claiming a billion rows converts its real cells and warns about the rest', async () => {
    const sheet = worksheet(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>value</t></is></c></row>' +
        '<row r="2"><c r="A2" t="inlineStr"><is><t>kept</t></is></c><c r="B2"><v>42</v></c></row>' +
        '<row r="1000000000"><c r="A1000000000"><v>1</v></c></row>',
      '',
    ).replace('<sheetData>', '<dimension ref="A1:XFD1000000000"/><sheetData>');
    // Walking the billion rows the dimension claims would not end: only the rows written are read.
    const data = await dataOf({ bytes: xlsx([{ name: 'Data', xml: sheet }]), filename: 'huge.xlsx' });
    assert.match(data.markdown, /\| kept \| 42 \|/);
    assert.match(data.warning, /beyond the largest possible sheet/);
  });

  it('reads rows whose last cell stands at column XFD without walking the columns between', async () => {
    // 100,000 rows with a value in A and a formula giving "" in XFD: the rows span every
    // column while the table needs one.
    const rows = Array.from(
      { length: 100_000 },
      (_, i) =>
        `<row r="${i + 1}"><c r="A${i + 1}"><v>${i + 1}</v></c><c r="XFD${i + 1}" t="str"><f>""</f><v></v></c></row>`,
    );
    const file = xlsx([{ name: 'Wide', xml: worksheet(rows.join('')) }]);
    const { markdown } = await dataOf({ bytes: file, filename: 'wide.xlsx' });
    assert.match(markdown, /^\| 1 \|\n\| --- \|\n\| 2 \|$/m);
    assert.match(markdown, /^\| 100000 \|$/m);
  });

  it('reads a sheet part once when the workbook lists it under a million sheets', async () => {
    const aliases = Array.from(
      { length: 999_999 },
      (_, i) => `<sheet name="S${i + 1}" sheetId="${i + 2}" r:id="rId1"/>`,
    );
    const file = xlsx(
      [{ name: 'S0', xml: worksheet('<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>2</v></c></row>') }],
      { listed: aliases },
    );
    const data = await dataOf({ bytes: file, filename: 'aliases.xlsx' });
    // The sheet once, its one row as the header of a table without data rows.
    assert.equal(data.markdown, '## S0\n\n| 1 | 2 |\n| --- | --- |');
    assert.match(data.warning, /999999 sheets name the part of an earlier sheet; they were left out/);
  });

  it('gives one short warning for a hundred thousand sheets whose parts are missing', async () => {
    const missing = Array.from(
      { length: 100_000 },
      (_, i) => `<sheet name="Gone${i}" sheetId="${i + 2}" r:id="rIdGone${i}"/>`,
    );
    const file = xlsx([{ name: 'Kept', xml: worksheet('<row r="1"><c r="A1"><v>7</v></c></row>') }], {
      listed: missing,
    });
    const data = await dataOf({ bytes: file, filename: 'gone.xlsx' });
    // The one sheet read, its single cell shown as plain text (a table of one cell says nothing more).
    assert.equal(data.markdown, '## Kept\n\n7');
    assert.match(data.warning, /100000 sheets could not be read .* "Gone0", .* 99990 more\./);
    assert.ok(data.warning.length < 1000, `warning of ${data.warning.length} characters`);
  });

  it('cuts Markdown past 50 MiB with a warning naming the sheet and row', async () => {
    // One 32 KB shared string shown in 2,000 cells: a small file whose table is ~64 MB of Markdown.
    const long = 'spreadsheet '.repeat(2700);
    const rows = Array.from(
      { length: 2000 },
      (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="s"><v>0</v></c></row>`,
    );
    const file = xlsx([{ name: 'Long text', xml: worksheet(rows.join('')) }], { sharedStrings: [long] });
    assert.ok(file.length < 100_000);
    const data = await dataOf({ bytes: file, filename: 'absurd.xlsx' });
    const md: string = data.markdown;
    assert.ok(md.length <= 50 * 1024 * 1024, `${md.length} characters`);
    assert.ok(md.length > 45 * 1024 * 1024, `${md.length} characters`);
    const cut = /The output was cut at row (\d+) of sheet "Long text": the Markdown would exceed 50 MiB/.exec(
      data.warning,
    );
    assert.ok(cut, data.warning);
    // Rows 1 to N-1 are shown: N-1 table lines and the delimiter row.
    const tableLines = md.split('\n').filter((line) => line.startsWith('|')).length;
    assert.equal(Number(cut[1]), tableLines);
  });

  it('refuses a workbook that declares XML entities, never expanding them', async () => {
    const laughs = '<!DOCTYPE worksheet [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>';
    const sheet = worksheet(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>&lol2;</t></is></c></row>',
      '',
      laughs,
    );
    await assert.rejects(convert({ bytes: xlsx([{ name: 'S', xml: sheet }]), filename: 'laughs.xlsx' }), {
      code: 'UNPARSABLE_DOCUMENT',
      message: /declares XML entities/,
    });
  });

  describe('external references', () => {
    let requests = 0;
    let origin = '';
    const listener = http.createServer((_req, res) => {
      requests++;
      res.end('<secret>from the network</secret>');
    });
    before(async () => {
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => listener.close(() => resolve())));

    it('are never fetched: linked workbooks, hyperlinks, external entities', async () => {
      const sheet = worksheet(
        `<row r="1"><c r="A1" t="inlineStr"><is><t>Rate</t></is></c></row><row r="2"><c r="A2"><f>[1]Rates!A1</f><v>0.25</v></c></row>` +
          '<row r="3"><c r="A3" t="inlineStr"><is><t>source</t></is></c></row>',
        '<hyperlinks><hyperlink ref="A3" r:id="rIdLink"/></hyperlinks>',
      );
      const linked = xlsx(
        [
          {
            name: 'Linked',
            xml: sheet,
            rels: `<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${origin}/page" TargetMode="External"/>`,
          },
        ],
        {
          extra: [
            {
              name: 'xl/externalLinks/externalLink1.xml',
              data: '<?xml version="1.0"?><externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><externalBook r:id="rId1"/></externalLink>',
            },
            {
              name: 'xl/externalLinks/_rels/externalLink1.xml.rels',
              data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath" Target="${origin}/rates.xlsx" TargetMode="External"/></Relationships>`,
            },
          ],
        },
      );
      const { markdown } = await dataOf({ bytes: linked, filename: 'linked.xlsx' });
      // The cached result of the formula that reads the other workbook, and the link as a link.
      assert.match(markdown, /0\.25/);
      assert.ok(markdown.includes(`[source](${origin}/page)`), markdown);

      const xxe = worksheet(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>&xxe;</t></is></c></row>',
        '',
        `<!DOCTYPE worksheet [<!ENTITY xxe SYSTEM "${origin}/secret">]>`,
      );
      // Refused for declaring an entity, so none is ever resolved.
      await assert.rejects(
        convert({ bytes: xlsx([{ name: 'S', xml: xxe }]), filename: 'xxe.xlsx' }),
        (error) => {
          assert.equal((error as { code?: string }).code, 'UNPARSABLE_DOCUMENT');
          assert.match((error as Error).message, /declares XML entities/);
          assert.doesNotMatch((error as Error).message, /from the network/);
          return true;
        },
      );
      assert.equal(requests, 0);
    });
  });

  /** An OLE file with its Workbook stream replaced by `edit`'s result. */
  function withWorkbookStream(xls: Uint8Array, edit: (stream: Buffer) => Buffer): Uint8Array {
    const ole = CFB.read(Buffer.from(xls), { type: 'buffer' });
    const stream = Buffer.from(CFB.find(ole, 'Workbook')!.content as Uint8Array);
    CFB.utils.cfb_del(ole, 'Workbook');
    CFB.utils.cfb_add(ole, '/Workbook', edit(stream));
    return CFB.write(ole, { type: 'buffer' }) as Uint8Array;
  }

  it('refuses a password-protected XLS (FILEPASS record) with ENCRYPTED_DOCUMENT', async () => {
    const encrypted = withWorkbookStream(writtenWorkbook('biff8'), (stream) => {
      // FILEPASS (0x002F) right after the globals' BOF: XOR obfuscation, key and verifier.
      const bofEnd = 4 + stream.readUInt16LE(2);
      const filepass = Buffer.from([0x2f, 0x00, 0x06, 0x00, 0x00, 0x00, 0x34, 0x12, 0x78, 0x56]);
      return Buffer.concat([stream.subarray(0, bofEnd), filepass, stream.subarray(bofEnd)]);
    });
    await assert.rejects(convert({ bytes: encrypted, filename: 'locked.xls' }), {
      code: 'ENCRYPTED_DOCUMENT',
      message: /password-protected/,
    });
  });

  it('XLS: a hyperlink that names a target frame links to its URL, not to the frame', async () => {
    const sheet = XLSX.utils.aoa_to_sheet([['Site'], ['Widget']]);
    sheet.A2!.l = { Target: 'https://example.com/widget' };
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, sheet, 'Links');
    const xls = withWorkbookStream(
      XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Uint8Array,
      (s) => {
        // HLINK: ref (8 bytes), CLSID (16), version, flags, then the display name; a frame name
        // (flag 0x80) goes between the display name and the URL moniker.
        let p = 0;
        while (s.readUInt16LE(p) !== 0x01b8) p += 4 + s.readUInt16LE(p + 2);
        const data = p + 4;
        const flags = data + 28;
        assert.equal(s.readUInt32LE(flags) & 0x90, 0x10);
        const frameAt = flags + 8 + 2 * s.readUInt32LE(flags + 4);
        const frame = Buffer.alloc(4 + 14);
        frame.writeUInt32LE(7, 0);
        frame.write('_blank\0', 4, 'utf16le');
        const out = Buffer.concat([s.subarray(0, frameAt), frame, s.subarray(frameAt)]);
        out.writeUInt16LE(s.readUInt16LE(p + 2) + frame.length, p + 2);
        out.writeUInt32LE(s.readUInt32LE(flags) | 0x80, flags);
        return out;
      },
    );
    const data = await dataOf({ bytes: xls, filename: 'framed.xls' });
    assert.match(data.markdown, /\[Widget\]\(https:\/\/example\.com\/widget\)/);
  });

  it('keeps the rows before the damage in a truncated XLS and XLSB, with a warning', async () => {
    const rows = Array.from({ length: 400 }, (_, i) => [`row ${i + 1}`, i + 1]);
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['name', 'n'], ...rows]), 'Rows');

    const xls = withWorkbookStream(XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Uint8Array, (s) =>
      s.subarray(0, Math.floor(s.length * 0.6)),
    );
    const fromXls = await dataOf({ bytes: xls, filename: 'cut.xls' });
    assert.match(fromXls.markdown, /^\| row 1 \| 1 \|$/m);
    assert.doesNotMatch(fromXls.markdown, /row 400/);
    assert.match(fromXls.warning, /truncated or damaged/);

    const xlsb = CFB.read(XLSX.write(wb, { type: 'buffer', bookType: 'xlsb' }) as Buffer, { type: 'buffer' });
    const sheet = CFB.find(xlsb, '/xl/worksheets/sheet1.bin')!;
    const cut = Buffer.from(sheet.content as Uint8Array).subarray(0, Math.floor(sheet.content.length * 0.5));
    CFB.utils.cfb_del(xlsb, '/xl/worksheets/sheet1.bin');
    CFB.utils.cfb_add(xlsb, '/xl/worksheets/sheet1.bin', cut);
    const fromXlsb = await dataOf({
      bytes: CFB.write(xlsb, { type: 'buffer', fileType: 'zip' }) as Uint8Array,
      filename: 'cut.xlsb',
    });
    assert.match(fromXlsb.markdown, /^\| row 1 \| 1 \|$/m);
    assert.doesNotMatch(fromXlsb.markdown, /row 400/);
    assert.match(fromXlsb.warning, /sheet1\.bin is truncated or damaged/);
  });

  it('reads an ODS table without a name (its attribute damaged)', async () => {
    const ods = CFB.read(Buffer.from(corpusFile('ods/tika-testFooter.ods').bytes), { type: 'buffer' });
    const entries = ods.FileIndex.flatMap((entry, i): ZipEntry[] => {
      const name = ods.FullPaths[i]!.replace(/^Root Entry\//, '');
      if (entry.type !== 2 || name.endsWith('/') || name.startsWith('\u0001')) return [];
      const data = Buffer.from(entry.content as Uint8Array);
      if (name !== 'content.xml') return [{ name, data, store: name === 'mimetype' }];
      return [{ name, data: data.toString('utf8').replace('table:name="Sheet1"', 'table:nme="Sheet1"') }];
    });
    const data = await dataOf({ bytes: zip(entries), filename: 'damaged.ods' });
    // Every row, as the undamaged file's reference has them.
    assertRowsOfReference(data.markdown, 'ods/tika-testFooter.ods.expected.txt');
  });
});
