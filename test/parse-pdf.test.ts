import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corpusFile, parse, useServer } from './helpers/server.ts';

/** Real PDFs from the shared corpus, through HTTP, asserting on what they say. */
describe('PDF', () => {
  const server = useServer({ QUIRE_WORKERS: '2' });

  async function call(file: string, options: Record<string, unknown> = {}) {
    return parse(server(), { file: corpusFile(`pdf/${file}`), options });
  }

  it('extracts text with headings, joined paragraphs and page counts', async () => {
    const { status, body } = await call('text/mid-test.pdf');
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.equal(body.data.metadata.contentType, 'application/pdf');
    assert.equal(body.data.metadata.numPages, 1);
    assert.equal(body.data.metadata.totalPages, 1);
    const md: string = body.data.markdown;
    assert.match(md, /^## 1 Introduction$/m);
    assert.match(md, /While there is contemporaneous exploration of multi-agent approaches/);
    // Lines of one paragraph are joined, not broken where the page wrapped them.
    assert.match(md, /building block in developing powerful agents that utilize LLMs for reasoning/);
  });

  it('honours maxPages: numPages is what was parsed, totalPages the true count', async () => {
    const { status, body } = await call('big/pjs-freeculture-352p.pdf', {
      parsers: [{ type: 'pdf', mode: 'fast', maxPages: 10 }],
    });
    assert.equal(status, 200);
    assert.equal(body.data.metadata.numPages, 10);
    assert.equal(body.data.metadata.totalPages, 352);
    const md: string = body.data.markdown;
    assert.match(md, /Rebuilding Freedoms Previously Presumed:/);
    assert.doesNotMatch(md, /care about the Internet, and whether you’re on Safire’s left or on his right/);
  });

  it('keeps a ruled table with merged cells as a table', async () => {
    const { body } = await call('tables/tab-spanning_cells.pdf');
    const md: string = body.data.markdown;
    assert.match(md, /<th colspan="6">Improved operation scenario<\/th>/);
    assert.match(
      md,
      /<tr><td>Server closets<\/td><td>1,505<\/td><td>1,580<\/td><td>1,643<\/td><td>1,673<\/td><td>1,689<\/td><\/tr>/,
    );
  });

  it('reads the columns of a two-column paper in order, and only its real table as a table', async () => {
    const { body } = await call('multicolumn/pyp-latex-multicolumn.pdf');
    const md: string = body.data.markdown;
    const order = [
      '## Abstract',
      'Nulla malesuada porttitor diam',
      'pellentesque ante. Phasellus',
      'Suspendisse vitae elit.',
    ];
    const at = order.map((text) => md.indexOf(text));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!)),
      JSON.stringify(at),
    );
    assert.equal([...md.matchAll(/^\| - \|/gm)].length, 1, 'one table: the country table');
    assert.match(md, /^\| Country \| Population \(millions\) \|/m);
  });

  it('OCRs a scanned page in auto mode and leaves it alone in fast mode', async () => {
    const auto = await call('scanned/doc-ocr_test.pdf');
    assert.equal(auto.status, 200);
    assert.match(auto.body.data.markdown, /Docling bundles PDF document conversion to JSON and Markdown/i);
    const fast = await call('scanned/doc-ocr_test.pdf', { parsers: [{ type: 'pdf', mode: 'fast' }] });
    assert.equal(fast.status, 200);
    assert.doesNotMatch(fast.body.data.markdown, /Docling bundles/i);
  });

  it('refuses password-protected and empty files with clear codes', async () => {
    const locked = await call('broken/plb-password-example.pdf');
    assert.equal(locked.status, 400);
    assert.equal(locked.body.code, 'ENCRYPTED_DOCUMENT');
    const empty = await call('broken/plb-empty-0-bytes.pdf');
    assert.equal(empty.status, 400);
    assert.match(empty.body.error, /empty|not a PDF|no bytes|not a supported/i);
  });

  it('recovers text from a damaged file, with a warning', async () => {
    const { status, body } = await call('broken/pjs-xref_command_missing.pdf');
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.ok(body.data.markdown.trim().length > 0);
  });
});
