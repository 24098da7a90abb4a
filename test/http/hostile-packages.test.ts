import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import CFB from 'cfb';
import { useApp } from '../helpers/app.ts';
import { corpusFile, parse } from '../helpers/server.ts';
import { documentXml, docx, paragraph, worksheet, xlsx, zip } from '../helpers/zip.ts';

const MiB = 1024 * 1024;

/** A DOCX whose single document.xml inflates to 600 MiB of spaces from ~600 KB. */
function zipBomb(): Buffer {
  const [head, tail] = documentXml('\0').split('\0') as [string, string];
  return docx(Buffer.concat([Buffer.from(head), Buffer.alloc(600 * MiB, 0x20), Buffer.from(tail)]));
}

/**
 * Office packages built to exhaust a converter, through the API in-process: the real pool of
 * conversion processes refuses each with its own code, or reads it, and keeps serving.
 */
describe('hostile office packages', () => {
  const server = useApp({ QUIRE_WORKERS: '2' });

  async function expectStillServing(): Promise<void> {
    const next = await parse(server(), { file: corpusFile('docx/mammoth-simple-list.docx') });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.ok(next.body.data.markdown.length > 0);
  }

  it('refuses a zip bomb with RESOURCE_LIMIT and keeps serving', async () => {
    // Within the request's own timeout: inflating the whole 600 MiB first would answer 408, or
    // run the worker out of memory, instead of the refusal.
    const { status, body } = await parse(server(), {
      file: { bytes: zipBomb(), filename: 'bomb.docx' },
      options: { timeout: 60_000 },
    });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /inflates to more than 512 MiB/);
    await expectStillServing();
  });

  it('refuses a spreadsheet zip bomb before any sheet is read', async () => {
    // A sheet whose rows are 600 MiB of spaces, deflated to ~600 KB.
    const [head, tail] = worksheet('\0').split('\0') as [string, string];
    const sheet = Buffer.concat([Buffer.from(head), Buffer.alloc(600 * MiB, 0x20), Buffer.from(tail)]);
    const file = xlsx([{ name: 'S', xml: sheet }]);
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'bomb.xlsx' } });
    assert.equal(status, 400, JSON.stringify(body).slice(0, 300));
    assert.equal(body.code, 'RESOURCE_LIMIT');
    await expectStillServing();
  });

  it('refuses entity expansion (billion laughs) without expanding anything', async () => {
    const laughs =
      '<!DOCTYPE w:document [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>';
    const file = docx(documentXml(paragraph('&lol3;'), laughs));
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'laughs.docx' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /declares XML entities/);
  });

  it('never resolves an external entity', async () => {
    const xxe = '<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';
    const file = docx(documentXml(paragraph('secret: &xxe;'), xxe));
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'xxe.docx' } });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /declares XML entities/);
    assert.doesNotMatch(JSON.stringify(body), /root:/);
  });

  it('refuses absurd nesting with RESOURCE_LIMIT', async () => {
    const depth = 50_000;
    const body = `${'<w:sdt><w:sdtContent>'.repeat(depth)}${paragraph('deep')}${'</w:sdtContent></w:sdt>'.repeat(depth)}`;
    const file = docx(documentXml(body));
    const res = await parse(server(), { file: { bytes: file, filename: 'deep.docx' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'RESOURCE_LIMIT');
    assert.match(res.body.error, /nests elements deeper than 256/);
  });

  it('reads past two million markup declarations in a sheet without quadratic scanning', async () => {
    const rows = `${'<!x>'.repeat(2_000_000)}<row r="1"><c r="A1" t="inlineStr"><is><t>after them</t></is></c></row>`;
    const file = xlsx([{ name: 'S', xml: worksheet(rows) }]);
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'declarations.xlsx' } });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /after them/);
  });

  it('reads an element with 400,000 attributes without quadratic duplicate checks', async () => {
    const attributes = Array.from({ length: 400_000 }, (_, i) => ` a${i}="1"`).join('');
    const file = docx(documentXml(`<w:p${attributes}><w:r><w:t>many attributes</w:t></w:r></w:p>`));
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'attributes.docx' } });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /many attributes/);
  });

  it('keeps namespace declarations on every level of a deep document cheap', async () => {
    // 100 levels each declaring 12,000 prefixes: a copy of all declarations in scope per level
    // would hold 60 million entries.
    let open = '';
    let close = '';
    for (let level = 0; level < 100; level++) {
      open += `<w:sdt${Array.from({ length: 12_000 }, (_, i) => ` xmlns:p${level}x${i}="urn:x"`).join('')}><w:sdtContent>`;
      close = `</w:sdtContent></w:sdt>${close}`;
    }
    const file = docx(documentXml(`${open}${paragraph('declared deep')}${close}`));
    // Room for a busy machine: cheap here means no quadratic copying, which no timeout would let
    // finish; a loaded machine's 1.2 million declarations can take past the default 30 s.
    const { status, body } = await parse(server(), {
      file: { bytes: file, filename: 'namespaces.docx' },
      options: { timeout: 100_000 },
    });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /declared deep/);
  });

  it('reads an XLS whose mini-stream chain loops while its size claims 4 GB, without repeating it', async () => {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['hello', 'mini stream']]), 'S');
    const xls = Buffer.from(XLSX.write(wb, { type: 'buffer', bookType: 'biff8' }) as Uint8Array);
    const sectorAt = (sector: number) => (sector + 1) * 512;
    const miniFat = sectorAt(xls.readUInt32LE(0x3c));
    const directory = sectorAt(xls.readUInt32LE(0x30));
    const entry = [0, 1, 2, 3]
      .map((i) => directory + i * 128)
      .find((at) => xls.toString('utf16le', at, at + 16) === 'Workbook');
    assert.ok(entry !== undefined);
    // The small stream lives in the mini stream; raise the cutoff so that a 4 GB claim stays
    // there, and point the chain's last sector back at its first.
    xls.writeUInt32LE(0xffffffff, 0x38);
    xls.writeUInt32LE(0xfffffff0, entry + 0x78);
    const first = xls.readUInt32LE(entry + 0x74);
    let last = first;
    while (xls.readUInt32LE(miniFat + last * 4) < 0xfffffffe) last = xls.readUInt32LE(miniFat + last * 4);
    xls.writeUInt32LE(first, miniFat + last * 4);
    const { status, body } = await parse(server(), { file: { bytes: xls, filename: 'looping.xls' } });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /\| hello \| mini stream \|/);
  });

  it('refuses a package with tens of thousands of entries', async () => {
    const entries = Array.from({ length: 25_000 }, (_, i) => ({
      name: `junk/${i}.xml`,
      data: '',
      store: true,
    }));
    const file = zip(entries);
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'many.docx' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /25000 entries/);
  });

  it('gives a clear 4xx for a corrupt package', async () => {
    const file = Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4096, 0x41)]);
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'corrupt.docx' } });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /not a readable ZIP package/);
  });

  it('gives a clear 4xx for a truncated document, never a hang', async () => {
    const { bytes } = corpusFile('docx/docling-unit_test_headers.docx');
    const half = bytes.subarray(0, Math.floor(bytes.length / 2));
    const { status, body } = await parse(server(), { file: { bytes: half, filename: 'half.docx' } });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /truncated/);
    await expectStillServing();
  });

  it('says ENCRYPTED_DOCUMENT for a password-protected Office package', async () => {
    const ole = CFB.utils.cfb_new();
    CFB.utils.cfb_add(ole, 'EncryptionInfo', Buffer.alloc(256, 1));
    CFB.utils.cfb_add(ole, 'EncryptedPackage', Buffer.alloc(4096, 2));
    const bytes = CFB.write(ole, { type: 'buffer' }) as Buffer;
    for (const filename of [
      'secret.docx',
      'secret.xlsx',
      'secret.pptx',
      'secret.doc',
      'secret.xls',
      'secret.ppt',
    ]) {
      const { status, body } = await parse(server(), { file: { bytes, filename } });
      assert.equal(status, 400, filename);
      assert.equal(body.code, 'ENCRYPTED_DOCUMENT', filename);
      assert.match(body.error, /password-protected/);
    }
  });

  it('reads what a truncated RTF holds and says it was cut short', async () => {
    const rtf = '{\\rtf1\\ansi{\\fonttbl{\\f0 Times;}}\\pard First paragraph.\\par\\pard Second {\\b bold';
    const { status, body } = await parse(server(), { file: { bytes: rtf, filename: 'cut.rtf' } });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /First paragraph\.\n\nSecond \*\*bold\*\*/);
    assert.match(body.data.warning, /truncated|unclosed|end/i);
  });

  it('survives RTF nested a million groups deep', async () => {
    const rtf = `{\\rtf1 before ${'{'.repeat(1_000_000)}deep${'}'.repeat(1_000_000)} after}`;
    const { status, body } = await parse(server(), { file: { bytes: rtf, filename: 'deep.rtf' } });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /before/);
    assert.match(body.data.markdown, /after/);
  });

  it('gives UNPARSABLE_DOCUMENT for an OLE file that is not a Word document', async () => {
    const ole = CFB.utils.cfb_new();
    CFB.utils.cfb_add(ole, 'Something', Buffer.from('not word'));
    const bytes = CFB.write(ole, { type: 'buffer' }) as Buffer;
    const { status, body } = await parse(server(), { file: { bytes, filename: 'odd.doc' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /WordDocument/);
  });

  it('gives UNPARSABLE_DOCUMENT for an EPUB without its container', async () => {
    const file = zip([
      { name: 'mimetype', data: 'application/epub+zip', store: true },
      { name: 'OEBPS/ch1.xhtml', data: '<html><body><p>orphan</p></body></html>' },
    ]);
    const { status, body } = await parse(server(), { file: { bytes: file, filename: 'book.epub' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(body.error, /container/);
  });

  it('does not expand an ODT table that claims billions of repeated cells', async () => {
    const content =
      '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">' +
      '<office:body><office:text><table:table>' +
      '<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="16384"><text:p>x</text:p></table:table-cell></table:table-row>' +
      '</table:table><text:p>after the table</text:p></office:text></office:body></office:document-content>';
    const file = zip([
      { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
      { name: 'content.xml', data: content },
    ]);
    // Within the request's own timeout: expanding 16 billion cells would end in a 408 (or run
    // the worker out of memory), not in the answer below.
    const { status, body } = await parse(server(), {
      file: { bytes: file, filename: 'repeat.odt' },
      options: { timeout: 60_000 },
    });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.match(body.data.markdown, /after the table/);
    assert.match(body.data.warning, /repeats its cells more often than Quire expands/);
  });
});
