import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { hugePngHeader, imageFixture } from '../helpers/images.ts';
import { lockedPpt } from '../helpers/ppt.ts';
import { type ParseCall, parse } from '../helpers/server.ts';
import { worksheet, xlsx } from '../helpers/zip.ts';

/**
 * What POST /v2/parse adds to a conversion: the multipart upload (its file name and part type
 * reach the converter, options come as a text field), the envelope around the answer, and a
 * refused file's status and code, one refusal of each family of converters. What the converters
 * make of the files is tested in-process: test/unit/convert-*.test.ts.
 */
describe('parse uploads over HTTP', () => {
  const server = useApp();

  /**
   * POST /v2/parse with `options` as its text field. The timeout is a bound for a loaded machine,
   * not a speed claim: the app's conversion processes start with it, and the first conversion
   * waits for one to have loaded every converter.
   */
  const post = (file: ParseCall['file'], options: Record<string, unknown> = {}) =>
    parse(server(), { file, options: { timeout: 120_000, ...options } });

  /** The 400 a refused upload gets: the contract's error body, with its code and message. */
  async function assertRefused(file: ParseCall['file'], code: string, error: RegExp) {
    const { status, body } = await post(file);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.success, false);
    assert.equal(body.code, code, file?.filename);
    assert.match(body.error, error);
  }

  it('answers the envelope: success, the outputs asked for, metadata with what the API adds', async () => {
    const page =
      '<html><head><title>Envelope</title></head><body><main><p>Some text.</p></main></body></html>';
    const { status, body } = await post({ bytes: page, filename: 'demo.html' });
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.success, true);
    // Markdown by default, and nothing of the conversion's own bookkeeping (usage).
    assert.deepEqual(Object.keys(body.data).sort(), ['markdown', 'metadata']);
    assert.equal(body.data.markdown, 'Some text.');
    const m = body.data.metadata;
    // The multipart part's file name is the upload's sourceURL and names its url.
    assert.equal(m.sourceURL, 'demo.html');
    assert.equal(m.url, 'https://uploads.quire.invalid/demo.html');
    assert.equal(m.statusCode, 200);
    assert.equal(m.title, 'Envelope');
    assert.match(m.scrapeId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // README: one credit per document (plus one per PDF page).
    assert.equal(m.creditsUsed, 1);
    assert.equal(m.concurrencyLimited, false);
  });

  it('reads options from their text field and the file type from the part', async () => {
    const html = await post({ bytes: 'h1,h2\nx,y\n', filename: 'h.csv' }, { formats: ['html'] });
    assert.equal(html.status, 200, JSON.stringify(html.body));
    assert.deepEqual(Object.keys(html.body.data).sort(), ['html', 'metadata']);
    assert.match(html.body.data.html, /<th>h1<\/th>/);
    // Two records are too few to be judged a table by content: the part's type decides...
    const bytes = 'a,b\n1,2\n';
    const typed = await post({ bytes, filename: 'upload', type: 'text/csv' });
    assert.equal(typed.status, 200, JSON.stringify(typed.body));
    assert.equal(typed.body.data.metadata.contentType, 'text/csv');
    assert.equal(typed.body.data.markdown, '| a | b |\n| --- | --- |\n| 1 | 2 |');
    // ...and text/plain, which clients send for any text, decides nothing.
    const plain = await post({ bytes, filename: 'upload', type: 'text/plain' });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal(plain.body.data.metadata.contentType, 'text/plain');
    assert.doesNotMatch(plain.body.data.markdown, /^\|/m);
  });

  it('text: binary bytes under a text name, or none, get 400 UNSUPPORTED_FILE_TYPE', async () => {
    const binary = Uint8Array.from({ length: 2048 }, (_, i) => (i * 73 + 11) % 256);
    for (const filename of ['data.csv', 'notes.txt', 'upload'])
      await assertRefused({ bytes: binary, filename }, 'UNSUPPORTED_FILE_TYPE', /Supported file types: /);
  });

  it('office documents: a password-protected deck gets 400 ENCRYPTED_DOCUMENT', async () => {
    await assertRefused(
      { bytes: lockedPpt(), filename: 'locked.ppt' },
      'ENCRYPTED_DOCUMENT',
      /password-protected/,
    );
  });

  it('spreadsheets: a workbook declaring XML entities gets 400 UNPARSABLE_DOCUMENT', async () => {
    const sheet = worksheet(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>&lol;</t></is></c></row>',
      '',
      '<!DOCTYPE worksheet [<!ENTITY lol "lol">]>',
    );
    await assertRefused(
      { bytes: xlsx([{ name: 'S', xml: sheet }]), filename: 'laughs.xlsx' },
      'UNPARSABLE_DOCUMENT',
      /declares XML entities/,
    );
  });

  it('images: a truncated PNG gets 400 UNPARSABLE_DOCUMENT, a 100000 x 100000 one 400 RESOURCE_LIMIT', async () => {
    const { bytes } = imageFixture('scan.png');
    await assertRefused(
      { bytes: bytes.subarray(0, bytes.length >> 1), filename: 'cut.png' },
      'UNPARSABLE_DOCUMENT',
      /PNG image is damaged or truncated/,
    );
    await assertRefused(
      { bytes: hugePngHeader(100_000, 100_000), filename: 'bomb.png' },
      'RESOURCE_LIMIT',
      /100000 x 100000 pixels/,
    );
  });
});
