import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { buildPdf, lzwSpaceBomb, onePage, stream } from '../helpers/pdf.ts';
import { corpusFile, parse } from '../helpers/server.ts';

/**
 * PDFs through the API, for what the converter alone does not decide: the status and body a
 * refused file is answered with, what the answer's envelope adds to the converted document, and
 * a conversion the pool's watchdog stops. What the converter reads is test/unit/convert-pdf.test.ts.
 */
describe('PDF through the API', () => {
  // One worker: the runaway conversion below and the file sent beside it share it. A heap of
  // 512 MB (pdf.js needs ~150 MB for the 352-page book) puts the watchdog's line at 1.5 GB of
  // RSS, which the bomb passes less than halfway through, so it is stopped sooner on a busy machine.
  const app = useApp({ QUIRE_WORKERS: '1', QUIRE_WORKER_HEAP_MB: '512' });
  const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  const text = (s: string) => `BT /F1 12 Tf 72 700 Td (${s}) Tj ET`;

  it('answers a PDF with the document, its pages and credits, a scrape id and no queueing', async () => {
    const { status, body } = await parse(app(), {
      file: corpusFile('pdf/big/pjs-freeculture-352p.pdf'),
      options: { parsers: [{ type: 'pdf', mode: 'fast', maxPages: 10 }] },
    });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.equal(body.success, true);
    const { metadata } = body.data;
    assert.equal(metadata.contentType, 'application/pdf');
    assert.equal(metadata.sourceURL, 'pjs-freeculture-352p.pdf');
    assert.equal(metadata.numPages, 10);
    assert.equal(metadata.totalPages, 352);
    // One credit for the document and one per PDF page parsed (README, Credits).
    assert.equal(metadata.creditsUsed, 11);
    assert.match(metadata.scrapeId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(metadata.concurrencyLimited, false);
    assert.equal(body.data.warning, 'Only the first 10 of 352 pages were parsed (maxPages).');
    assert.match(body.data.markdown, /Rebuilding Freedoms Previously Presumed:/);
    // What only the conversion process keeps for itself is not in the answer.
    assert.equal(body.data.usage, undefined);
    assert.equal(body.data.modelInput, undefined);
  });

  it('refuses password-protected, empty and unreadable files with a 400, its code and why', async () => {
    for (const file of ['pdf/broken/plb-password-example.pdf', 'pdf/broken/tab-encrypted.pdf']) {
      const { status, body } = await parse(app(), { file: corpusFile(file) });
      assert.equal(status, 400, file);
      assert.deepEqual(
        body,
        {
          success: false,
          code: 'ENCRYPTED_DOCUMENT',
          error: 'The PDF is encrypted with a password; it cannot be read without it.',
        },
        file,
      );
    }
    // An empty upload is refused as it is read, before any converter.
    const empty = await parse(app(), { file: corpusFile('pdf/broken/plb-empty-0-bytes.pdf') });
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.body, {
      success: false,
      code: 'BAD_REQUEST',
      error: "The uploaded 'file' is empty.",
    });
    const junk = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    const notPdf = await parse(app(), { file: { bytes: junk, filename: 'report.pdf' } });
    assert.equal(notPdf.status, 400);
    assert.equal(notPdf.body.code, 'UNSUPPORTED_FILE_TYPE');
    assert.match(notPdf.body.error, /named as PDF but its bytes are not a PDF file/);
    const headerOnly = await parse(app(), {
      file: { bytes: new Uint8Array([...Buffer.from('%PDF-1.7\n'), ...junk]), filename: 'file.pdf' },
    });
    assert.equal(headerOnly.status, 400);
    assert.equal(headerOnly.body.code, 'UNPARSABLE_DOCUMENT');
    assert.match(headerOnly.body.error, /not a readable PDF/);
  });

  it('stops a conversion whose memory runs away, alone, with RESOURCE_LIMIT', {
    timeout: 5 * 60_000,
  }, async () => {
    // LZW, which pdf.js decodes without a cap: 2 MB of codes for 3.2 GB of spaces, in buffers
    // the heap limit does not count. The pool's watchdog kills the worker once it holds its heap
    // limit plus 1 GiB.
    const pdf = onePage(text('Served meanwhile'), `<< /Font << /F1 ${helvetica} >> >>`);
    const bomb = buildPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 ${helvetica} >> >> >>`,
      stream('/Filter /LZWDecode', lzwSpaceBomb(400)),
    ]);
    // Long deadlines, so that the watchdog ends the bomb even on a busy machine, where it grows
    // slowly (a conversion past 300 ms runs at nice 10), and the other file (behind it, on this
    // app's one worker) waits that long.
    const patient = { timeout: 240_000 };
    const send = (bytes: Uint8Array) =>
      parse(app(), { file: { bytes, filename: 'file.pdf' }, options: patient });
    const [bombed, other] = await Promise.all([send(bomb), send(pdf)]);
    assert.equal(bombed.status, 400, JSON.stringify(bombed.body).slice(0, 300));
    assert.deepEqual(bombed.body, {
      success: false,
      code: 'RESOURCE_LIMIT',
      error:
        'The document needs more memory to convert than one conversion may use, or its conversion crashed.',
    });
    assert.equal(other.status, 200, JSON.stringify(other.body).slice(0, 300));
    assert.match(other.body.data.markdown, /Served meanwhile/);
  });
});
