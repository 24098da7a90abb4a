import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PdfBlockItem, PdfPageBlocks } from '@mendable/firecrawl-js';
import { convert } from '../helpers/convert.ts';
import { corpusFile } from '../helpers/server.ts';

// The SDK's own types: what a client of the contract reads, not Quire's. The SDK itself reads
// these fields over HTTP in test/e2e/sdk.test.ts.
type Block = PdfBlockItem;
type PageBlocks = PdfPageBlocks;

/** A three-page report with headings, a ruled table on page 2 and a page number at each foot. */
const REPORT = 'pdf/tables/icdar-us-022.pdf';

/**
 * Text printed on each page of REPORT, from `pdftotext -f N -l N` (page 2's first paragraph
 * runs on from page 1 but comes after page 2's own header line, so it is not joined to it).
 */
const ON_PAGE: Record<number, string[]> = {
  1: [
    'Performance Data',
    'Law Enforcement Investigation',
    'ICE HSI opened 1,212 intellectual property investigations',
    'DOJ Prosecutions',
  ],
  2: [
    'property referrals, and they charged 177 cases with 259 defendants',
    '| Defendants Charged | 290 | 259 | 235 | 259 | 215 |',
    'DOJ and FBI have also transmitted to Congress their PRO IP Act Reports',
  ],
  3: [
    'Department of Homeland Security Intellectual Property Seizures',
    'CBP Civil Fines',
    'CBP implemented new procedures for issuing IPR penalties',
  ],
};

const MARKER = /\n\n---\n\n<!-- page (\d+) -->\n\n/g;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The PDF converter's per-page outputs, in the test's process (test/helpers/convert.ts). */
describe('PDF pages, page markers and blocks', () => {
  // The converted document as a client reads it: JSON, typed by the SDK.
  async function call(file: string, options: Record<string, unknown>): Promise<Record<string, any>> {
    return JSON.parse(JSON.stringify(await convert(corpusFile(file), options)));
  }

  it("pages: each physical page's Markdown, beside the document's, which is unchanged", async () => {
    const formats = ['markdown', 'html'];
    const plain = await call(REPORT, { formats });
    const data = await call(REPORT, { formats, parsers: [{ type: 'pdf', pages: true }] });
    assert.equal(data.markdown, plain.markdown);
    assert.equal(data.html, plain.html);
    assert.doesNotMatch(data.html, /data-page/);
    assert.equal(data.blocks, undefined);

    const pages: { pageNumber: number; markdown: string }[] = data.pages;
    assert.equal(pages.length, data.metadata.numPages);
    assert.deepEqual(
      pages.map((p) => p.pageNumber),
      [1, 2, 3],
    );
    for (const page of pages)
      for (const [n, phrases] of Object.entries(ON_PAGE))
        for (const phrase of phrases)
          assert.equal(
            page.markdown.includes(phrase),
            Number(n) === page.pageNumber,
            `page ${page.pageNumber} and "${phrase}" (page ${n})`,
          );
    assert.match(pages[0]!.markdown, /^# Performance Data\n\n## Law Enforcement Investigation\n/);
    assert.match(pages[1]!.markdown, /^\| District Totals \| FY 2007 \|/m);
    // The page numbers at the foot of each page are left out, as in the document's Markdown.
    assert.ok(pages.every((p) => !/Ｋ/.test(p.markdown)));
  });

  it('takes pageMarkdown, the old name of pages', async () => {
    const data = await call(REPORT, { parsers: [{ type: 'pdf', pageMarkdown: true }] });
    assert.equal(data.pages.length, 3);
    assert.match(data.pages[2].markdown, /^### P E R F O R M A N C E DATA$/m);
  });

  it('pageMarkers: a rule and the page number between pages, and nothing else changes', async () => {
    const plain = await call(REPORT, {});
    const data = await call(REPORT, { parsers: [{ type: 'pdf', pageMarkers: true }] });
    assert.equal(data.pages, undefined);
    const md: string = data.markdown;
    const markers = [...md.matchAll(MARKER)];
    assert.deepEqual(
      markers.map((m) => Number(m[1])),
      [2, 3],
    );
    assert.doesNotMatch(md, /^\s*(---|<!-- page)/);
    assert.doesNotMatch(md, /<!-- page 1 -->/);
    // What stands between the markers is each page's text.
    const parts = md.split(MARKER).filter((_, i) => i % 2 === 0);
    assert.equal(parts.length, 3);
    for (const [i, part] of parts.entries())
      for (const phrase of ON_PAGE[i + 1]!) assert.ok(part.includes(phrase), `page ${i + 1}: ${phrase}`);
    assert.equal(md.replace(MARKER, '\n\n'), plain.markdown);
  });

  it('blocks: typed blocks with boxes, reading order and their place in the Markdown', async () => {
    const data = await call(REPORT, { parsers: [{ type: 'pdf', blocks: true, pageMarkers: true }] });
    assert.equal(data.pages, undefined);
    const md: string = data.markdown;
    const blocks: PageBlocks[] = data.blocks;
    assert.deepEqual(
      blocks.map((p) => [p.pageNumber, p.width, p.height, p.status]),
      [
        [1, 612, 792, 'ok'],
        [2, 612, 792, 'ok'],
        [3, 612, 792, 'ok'],
      ],
    );
    for (const page of blocks) {
      assert.ok(page.items.length > 0, `page ${page.pageNumber} has blocks`);
      // Where this page's Markdown starts and ends, between its markers.
      const start = page.pageNumber === 1 ? 0 : md.indexOf(`<!-- page ${page.pageNumber} -->`);
      const next = md.indexOf(`<!-- page ${page.pageNumber + 1} -->`);
      const end = next < 0 ? md.length : next;
      for (const [i, b] of page.items.entries()) {
        assert.equal(b.readingOrder, i);
        assert.equal(b.id, `p${page.pageNumber}-b${i}`);
        assert.ok(b.bbox && page.width !== null && page.height !== null, `${b.id} has a box on a sized page`);
        const [x0, y0, x1, y1] = b.bbox;
        assert.ok(0 <= x0 && x0 <= x1 && x1 <= page.width, `${b.id} x ${b.bbox}`);
        assert.ok(0 <= y0 && y0 <= y1 && y1 <= page.height, `${b.id} y ${b.bbox}`);
        assert.equal(b.source, 'text-layer');
        assert.deepEqual(b.confidence, { layout: null, ocr: null });
        if (b.type === 'header' || b.type === 'footer') {
          assert.equal(b.markdownSpan, null, b.id);
          continue;
        }
        assert.ok(b.markdownSpan, `${b.id} (${b.type}) is in the Markdown`);
        const [from, to] = b.markdownSpan;
        assert.ok(start <= from && to <= end, `${b.id} lies within page ${page.pageNumber}'s Markdown`);
        const slice = md.slice(from, to);
        const have = new Set(words(slice));
        for (const w of words(b.content)) assert.ok(have.has(w), `${b.id}: "${w}" in ${slice.slice(0, 80)}`);
      }
      // Blocks in the Markdown come in reading order.
      const starts = page.items.flatMap((b) => (b.markdownSpan ? [b.markdownSpan[0]] : []));
      assert.deepEqual(
        starts,
        [...starts].sort((a, b) => a - b),
      );
      // Each page ends with its page number ("Ｋ 51 Ｋ"), which the Markdown leaves out.
      const last = page.items[page.items.length - 1]!;
      assert.equal(last.type, 'footer');
      assert.match(last.content, new RegExp(`\\b${50 + page.pageNumber}\\b`));
    }
    const [one, two] = blocks;
    const heading = one!.items.find((b) => b.content === 'Law Enforcement Investigation')!;
    assert.equal(heading.type, 'heading');
    assert.equal(heading.label, 'h2');
    assert.equal(md.slice(...heading.markdownSpan!), '## Law Enforcement Investigation');
    assert.ok(one!.items.every((b) => b.type !== 'heading' || /^h[1-6]$/.test(b.label ?? '')));
    const table = two!.items.find((b) => b.type === 'table')!;
    assert.ok(table, 'page 2 has its table');
    assert.equal(table.label, null);
    assert.match(table.content, /Defendants Charged/);
    assert.match(
      md.slice(...table.markdownSpan!),
      /^\| District Totals \| FY 2007 \|[\s\S]*\| 60\+ Months \| 16 \| 3 \| 9 \| 4 \| 8 \|$/,
    );
    // The table sits in the middle of the page, below its first paragraph.
    const paragraph = two!.items.find((b) => b.content.startsWith('property referrals'))!;
    assert.ok(paragraph.readingOrder < table.readingOrder && paragraph.bbox![3] <= table.bbox![1]);
  });

  it('keeps a paragraph that runs on across a page break with the page it starts on', async () => {
    // From pdftotext -f N -l N: page 1's second column ends "... Nam feugiat" in the paragraph
    // that starts "Fusce mauris.", and page 2 opens with the rest of it, "lacus vel est.
    // Curabitur consectetuer.", before its own "Suspendisse vel felis."
    const data = await call('pdf/multicolumn/pyp-latex-multicolumn.pdf', {
      parsers: [{ type: 'pdf', pages: true, blocks: true, pageMarkers: true }],
    });
    const md: string = data.markdown;
    assert.match(
      md,
      /Nam feugiat lacus vel est\. Curabitur consectetuer\.\n\n---\n\n<!-- page 2 -->\n\nSuspendisse vel felis\./,
    );
    assert.match(data.pages[0].markdown, /Nam feugiat lacus vel est\. Curabitur consectetuer\.$/);
    assert.match(data.pages[1].markdown, /^Suspendisse vel felis\./);
    // Page 2's first block is the paragraph's end, found inside page 1's Markdown; its start is
    // page 1's last block of text.
    const pages: PageBlocks[] = data.blocks;
    const rest = pages[1]!.items[0]!;
    assert.equal(rest.type, 'paragraph');
    assert.equal(md.slice(...rest.markdownSpan!), 'lacus vel est. Curabitur consectetuer.');
    assert.ok(rest.markdownSpan![1] < md.indexOf('<!-- page 2 -->'));
    const start = pages[0]!.items.find((b) => b.content.startsWith('Fusce mauris.'))!;
    assert.match(md.slice(...start.markdownSpan!), /^Fusce mauris\.[\s\S]*Nam feugiat$/);
    assert.equal(start.markdownSpan![1] + 1, rest.markdownSpan![0]);
  });

  it("gives a scanned page's blocks as OCR'd, with the recognition's confidence", async () => {
    const data = await call('pdf/scanned/doc-ocr_test.pdf', { parsers: [{ type: 'pdf', blocks: true }] });
    const items: Block[] = data.blocks[0].items;
    const text = items.find((b) => b.content.includes('Docling bundles PDF document conversion'));
    assert.ok(text, JSON.stringify(items).slice(0, 300));
    assert.equal(text.source, 'ocr');
    assert.ok(text.confidence.ocr !== null && text.confidence.ocr > 0.5 && text.confidence.ocr <= 1);
    assert.equal(text.confidence.layout, null);
    assert.match(data.markdown.slice(...text.markdownSpan!), /^Docling bundles PDF document conversion/);
  });

  it('lists a page that could not be read, as failed and empty', async () => {
    const data = await call('pdf/broken/pjs-Pages-tree-refs.pdf', {
      parsers: [{ type: 'pdf', pages: true, blocks: true }],
    });
    assert.match(data.warning, /1 of 2 PDF pages could not be read/);
    assert.deepEqual(data.pages[1], { pageNumber: 2, markdown: '' });
    assert.match(data.pages[0].markdown, /Testcase: ’Pages loop’/);
    assert.deepEqual(data.blocks[1], {
      pageNumber: 2,
      width: null,
      height: null,
      status: 'failed',
      items: [],
    });
    assert.equal(data.blocks[0].status, 'ok');
  });

  it('leaves the fields out for uploads that are not PDFs', async () => {
    const data = await convert(
      { bytes: '<h1>Title</h1><p>One paragraph.</p>', filename: 'page.html' },
      { parsers: [{ type: 'pdf', pages: true, blocks: true, pageMarkers: true }] },
    );
    assert.equal(data.pages, undefined);
    assert.equal(data.blocks, undefined);
    assert.equal(data.markdown, '# Title\n\nOne paragraph.');
  });
});
