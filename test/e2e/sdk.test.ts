import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { corpusFile, useServer } from '../helpers/server.ts';

describe('the official Firecrawl SDK, pointed at Quire', () => {
  // A team concurrency of its own, for the concurrency methods to read back.
  const server = useServer({ QUIRE_TEAM_CONCURRENCY: '3' });

  it('parses an HTML file with parse()', async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const file = corpusFile('html/docling-table_01.html');
    const doc = await client.parse(
      { data: Buffer.from(file.bytes), filename: file.filename, contentType: 'text/html' },
      { formats: ['markdown', 'html', 'links'] },
    );
    assert.match(doc.markdown ?? '', /\|/);
    assert.match(doc.html ?? '', /<table/);
    assert.ok(Array.isArray(doc.links));
    assert.equal(doc.metadata?.sourceURL, file.filename);
    assert.equal(doc.metadata?.statusCode, 200);
  });

  it('parses a CSV file', async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const file = corpusFile('csv/docling-csv-comma-in-cell.csv');
    const doc = await client.parse({ data: Buffer.from(file.bytes), filename: file.filename });
    assert.match(doc.markdown ?? '', /\| a \| , \| c \| d \|/);
  });

  it('parses office documents and PDFs, with their metadata', async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const docx = corpusFile('docx/docling-unit_test_headers.docx');
    const word = await client.parse({ data: Buffer.from(docx.bytes), filename: docx.filename });
    assert.match(word.markdown ?? '', /^# Test Document$/m);
    assert.equal(
      word.metadata?.contentType,
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    const pdf = corpusFile('pdf/text/mid-test.pdf');
    const paper = await client.parse(
      { data: Buffer.from(pdf.bytes), filename: pdf.filename, contentType: 'application/pdf' },
      { parsers: [{ type: 'pdf', mode: 'fast', maxPages: 1 }] },
    );
    assert.match(paper.markdown ?? '', /## 1 Introduction/);
    assert.equal(paper.metadata?.numPages, 1);
    const xlsx = corpusFile('xlsx/markitdown-test.xlsx');
    const sheet = await client.parse({ data: Buffer.from(xlsx.bytes), filename: xlsx.filename });
    assert.match(sheet.markdown ?? '', /\| Alpha \| Beta \| Gamma \| Delta \|/);
  });

  it("reads a PDF's pages, page markers and blocks through the SDK", async () => {
    // A three-page report with a ruled table on page 2 (test/unit/convert-pdf-pages.test.ts
    // asserts what each field holds; here, that the SDK sends the options and reads the fields).
    const marker = /\n\n---\n\n<!-- page (\d+) -->\n\n/g;
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const file = corpusFile('pdf/tables/icdar-us-022.pdf');
    const doc = await client.parse(
      { data: Buffer.from(file.bytes), filename: file.filename, contentType: 'application/pdf' },
      { formats: ['markdown'], parsers: [{ type: 'pdf', pages: true, blocks: true, pageMarkers: true }] },
    );
    const md = doc.markdown ?? '';
    assert.deepEqual(
      [...md.matchAll(marker)].map((m) => m[1]),
      ['2', '3'],
    );
    assert.deepEqual(
      doc.pages?.map((p) => p.pageNumber),
      [1, 2, 3],
    );
    // Each page's Markdown is what stands between the markers.
    assert.deepEqual(
      md.split(marker).filter((_, i) => i % 2 === 0),
      doc.pages?.map((p) => p.markdown),
    );
    const table = doc.blocks?.[1]?.items.find((b) => b.type === 'table');
    assert.ok(table?.markdownSpan);
    assert.match(md.slice(...table.markdownSpan), /^\| District Totals/);
  });

  it("reads the team's usage, concurrency and queue with the team methods", async () => {
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    const unlimited = 9007199254740991;
    const thisMonth = (periods: { endDate: string | null; creditsUsed?: number }[]) =>
      periods.filter((p) => p.endDate === null).reduce((sum, p) => sum + (p.creditsUsed ?? 0), 0);
    const before = thisMonth((await client.getCreditUsageHistorical()).periods);
    await client.parse({ data: Buffer.from('<p>One credit.</p>'), filename: 'one.html' });
    const byKey = await client.getCreditUsageHistorical(true);
    assert.equal(thisMonth(byKey.periods), before + 1);
    for (const period of byKey.periods) assert.equal(typeof period.apiKey, 'string');

    const credits = await client.getCreditUsage();
    assert.equal(credits.remainingCredits, unlimited);
    assert.match(credits.billingPeriodStart ?? '', /^\d{4}-\d\d-01T00:00:00\.000Z$/);
    const tokens = await client.getTokenUsage();
    assert.equal(tokens.remainingTokens, unlimited);
    assert.equal(tokens.billingPeriodEnd, credits.billingPeriodEnd);
    const spent = await client.getTokenUsageHistorical(false);
    assert.deepEqual(
      spent.periods.map((p) => p.tokensUsed),
      spent.periods.map(() => 0),
      'no model is configured',
    );
    assert.deepEqual(await client.getConcurrency(), { concurrency: 0, maxConcurrency: 3 });
    const queue = await client.getQueueStatus();
    assert.deepEqual(
      { ...queue, mostRecentSuccess: typeof queue.mostRecentSuccess },
      {
        success: true,
        jobsInQueue: 0,
        activeJobsInQueue: 0,
        waitingJobsInQueue: 0,
        maxConcurrency: 3,
        mostRecentSuccess: 'string',
      },
    );
  });

  it('surfaces Quire errors through the SDK', async () => {
    const bad = new Firecrawl({ apiKey: 'wrong', apiUrl: server().url });
    await assert.rejects(
      bad.parse({ data: Buffer.from('<p>x</p>'), filename: 'a.html' }),
      /Invalid token|401/,
    );
    const client = new Firecrawl({ apiKey: server().key, apiUrl: server().url });
    await assert.rejects(
      client.parse(
        { data: Buffer.from('<p>x</p>'), filename: 'a.html' },
        { parsers: [{ type: 'pdf', maxPages: 0 }] },
      ),
      /maxPages must be an integer from 1 to 10000/,
    );
  });
});
