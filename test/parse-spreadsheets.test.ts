import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corpusFile, parse, useServer } from './helpers/server.ts';
import { zip } from './helpers/zip.ts';

/** Real workbooks from the shared corpus, through HTTP, asserting on what they say. */
describe('spreadsheets', () => {
  const server = useServer({ QUIRE_WORKERS: '2' });

  async function dataOf(file: string) {
    const { status, body } = await parse(server(), { file: corpusFile(file) });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    return body.data;
  }

  it('XLS: values as the user sees them (currency, percentages, dates, fractions)', async () => {
    const data = await dataOf('xls/tika-testEXCEL-formats.xls');
    assert.equal(data.metadata.contentType, 'application/vnd.ms-excel');
    const md: string = data.markdown;
    assert.match(md, /^## Format Examples$/m);
    assert.match(md, /\| Number #,##0\.00 \| 1,599\.99 \| -1,599\.99 \|/);
    assert.match(md, /\| \$1,599\.99 \| \(\$1,599\.99\) \|/);
    assert.match(md, /\| Percentage \(0\.025\) \| 3% \| 2\.50% \|/);
    assert.match(md, /\| Fraction \(2\.5\) \| 2 1\/2 \|/);
    assert.match(md, /\| Date Format: m\/d\/yy \| 10\/3\/2009 \|/);
  });

  it('XLSX: every sheet under its name, in workbook order, first row as header', async () => {
    const data = await dataOf('xlsx/markitdown-test.xlsx');
    const md: string = data.markdown;
    const sheets = [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    assert.equal(sheets[0], 'Sheet1');
    assert.ok(sheets.length >= 2);
    assert.match(
      md,
      /^\| Alpha \| Beta \| Gamma \| Delta \|\n\| --- \| --- \| --- \| --- \|\n\| 89 \| 82 \| 100 \| 12 \|$/m,
    );
  });

  it('XLSX and XLSB: cell comments as notes after their table, with cell and author', async () => {
    const xlsx: string = (await dataOf('xlsx/docling-xlsx_comments.xlsx')).markdown;
    assert.match(
      xlsx,
      /\| Python is great \|[^\n]*\n[\s\S]*?\nComments:\n\n- A1 \(John Reviewer\): Why Python specifically\?/,
    );
    const xlsb = await dataOf('xlsb/poi-comments.xlsb');
    assert.equal(xlsb.metadata.contentType, 'application/vnd.ms-excel.sheet.binary.macroenabled.12');
    assert.match(xlsb.markdown, /- A2 \(Allison, Timothy B\.\): comment row2 \(index1\)/);
  });

  it('XLSB and ODS: shared strings in any script, ODF tables', async () => {
    const xlsb: string = (await dataOf('xlsb/poi-51519.xlsb')).markdown;
    assert.match(xlsb, /\| 1 \| 豊田 \| 豊田車会社 \|/);
    const ods = await dataOf('ods/tika-LibreOfficeCalc_ods_1.3.ods');
    assert.equal(ods.metadata.contentType, 'application/vnd.oasis.opendocument.spreadsheet');
    assert.match(ods.markdown, /^\| This \| is \| an \| example \| spreadsheet \|$/m);
  });

  it('a sheet claiming a billion rows converts its real cells and warns about the rest', async () => {
    const sheet =
      '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      '<dimension ref="A1:XFD1000000000"/><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>name</t></is></c><c r="B1" t="inlineStr"><is><t>value</t></is></c></row>' +
      '<row r="2"><c r="A2" t="inlineStr"><is><t>kept</t></is></c><c r="B2"><v>42</v></c></row>' +
      '<row r="1000000000"><c r="A1000000000"><v>1</v></c></row>' +
      '</sheetData></worksheet>';
    const file = zip([
      {
        name: '[Content_Types].xml',
        data:
          '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
      },
      {
        name: '_rels/.rels',
        data:
          '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
      },
      {
        name: 'xl/workbook.xml',
        data:
          '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
          '<sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data:
          '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
      },
      { name: 'xl/worksheets/sheet1.xml', data: sheet },
    ]);
    const started = Date.now();
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'huge.xlsx' } });
    assert.ok(Date.now() - started < 10_000);
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /\| kept \| 42 \|/);
    assert.match(body.data.warning, /row|dropped|beyond/i);
  });
});
