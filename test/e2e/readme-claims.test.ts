import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import CFB from 'cfb';
import pg from 'pg';
import { embeddedOnly, inClusterPass } from '../helpers/mode.ts';
import { buildPdf, stream } from '../helpers/pdf.ts';
import {
  corpusFile,
  parse,
  type RunningServer,
  repoRoot,
  startServer,
  useServer,
} from '../helpers/server.ts';

/**
 * README claims that no other test file checked (issue 13), each over HTTP against a real
 * server, asserting on content whose source is named: a corpus file and what an independent
 * tool (unzip, grep, pdftotext) shows of it, or a file built here because the corpus
 * holds no such case. The document-model claims are in parse-document-features.test.ts.
 */

const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** The file of a zip package (EPUB, DOCX) from the corpus, read with the cfb library. */
function packagePart(corpusPath: string, part: string): Buffer {
  const pkg = CFB.read(Buffer.from(corpusFile(corpusPath).bytes), { type: 'buffer' });
  const entry = CFB.find(pkg, `/${part}`);
  assert.ok(entry, `${part} is in ${corpusPath}`);
  return Buffer.from(entry.content as Uint8Array);
}

/** A fault of the embedded store: its write lock, held by this process until released. */
function holdSqliteWriteLock(server: RunningServer) {
  const db = new DatabaseSync(path.join(server.dataDir, 'quire.db'));
  db.exec('BEGIN IMMEDIATE');
  return {
    message: 'database is locked',
    stackHead: 'Error: ',
    release: async () => {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** A fault of a cluster's store: PostgreSQL refuses every new session row until released. */
async function refuseSessionRows(server: RunningServer) {
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  await client.query('ALTER TABLE sessions ADD CONSTRAINT test_fault CHECK (false) NOT VALID');
  return {
    message: 'new row for relation \\"sessions\\" violates check constraint \\"test_fault\\"',
    // node-postgres names its DatabaseError "error".
    stackHead: 'error: ',
    release: async () => {
      await client.query('ALTER TABLE sessions DROP CONSTRAINT test_fault');
      await client.end();
    },
  };
}

describe('README claims', () => {
  const server = useServer({ QUIRE_WORKERS: '2', QUIRE_SESSIONS_MIN_FREE_MB: '0' });

  async function dataOf(file: { bytes: Uint8Array | string; filename: string }, options?: unknown) {
    const { status, body } = await parse(server(), { file, options });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    return body.data;
  }

  describe('errors', () => {
    it('a 500 carries an error id and no stack trace; the log has both', async () => {
      // A real fault, not a test hook. In the embedded mode another process holds the store's
      // write lock (as a backup tool or a stuck `quire keys` could): SQLite gives up after its
      // busy timeout (5 s). In the cluster pass PostgreSQL refuses the row, as a constraint an
      // operator added by mistake would make it. Creating a session must write its record, and
      // the error is nothing the server expected: it answers 500. Nothing is launched first, so
      // no browser is needed.
      const s = server();
      const fault = inClusterPass ? await refuseSessionRows(s) : holdSqliteWriteLock(s);
      let res: Response;
      try {
        res = await fetch(`${s.url}/v2/interact`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
          body: '{}',
        });
      } finally {
        await fault.release();
      }
      assert.equal(res.status, 500);
      const text = await res.text();
      const body = JSON.parse(text);
      assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'success']);
      assert.equal(body.success, false);
      assert.equal(body.code, 'UNKNOWN_ERROR');
      const id = /Error ID: ([0-9a-f-]{36})$/.exec(body.error)?.[1];
      assert.ok(id, body.error);
      // No stack, no file paths, not even the underlying message.
      assert.doesNotMatch(text, /\bat \S+ \(|\.ts:\d+|node_modules/);
      assert.equal(text.includes(fault.message), false, text);
      // The operator finds the cause under the same id. The log comes down another pipe than
      // the answer, so it may arrive after it: wait for the line, don't race it.
      const loggedLine = () =>
        s
          .output()
          .split('\n')
          .find((line) => line.includes(id));
      while (!loggedLine()) await new Promise((resolve) => setTimeout(resolve, 20));
      const logged = loggedLine()!;
      assert.ok(logged.includes(fault.message), logged);
      assert.ok(logged.includes(`"stack":"${fault.stackHead}${fault.message}\\n    at `), logged);
    });
  });

  describe('HTML: the base URL relative links resolve against', () => {
    const links = async (html: string, filename = 'page.html') =>
      (await dataOf({ bytes: html, filename }, { formats: ['links'], onlyMainContent: false }))
        .links as string[];

    it("a page's canonical link wins over the upload URL (corpus page)", async () => {
      // markitdown-test_wikipedia.html has `<link rel="canonical" href="https://en.wikipedia.org/wiki/Microsoft">`,
      // no <base> and no og:url (grep), and links such as `href="/wiki/Bill_Gates"`.
      const data = await dataOf(corpusFile('html/markitdown-test_wikipedia.html'), {
        formats: ['links'],
        onlyMainContent: false,
      });
      assert.ok(data.links.includes('https://en.wikipedia.org/wiki/Bill_Gates'));
      assert.ok(!data.links.some((l: string) => l.startsWith('https://uploads.quire.invalid/')));
    });

    it("a page's og:url wins over the upload URL (corpus page)", async () => {
      // markitdown-test_serp.html has `<meta property="og:url" content="https://www.bing.com/search?...">`,
      // no canonical link and no <base> (grep), and `href="/rewards/dashboard"`, and its favicon
      // `href="/sa/simg/favicon-trans-bg-blue-mg.ico"`.
      const data = await dataOf(corpusFile('html/markitdown-test_serp.html'), {
        formats: ['links'],
        onlyMainContent: false,
      });
      assert.ok(data.links.includes('https://www.bing.com/rewards/dashboard'));
      assert.equal(data.metadata.favicon, 'https://www.bing.com/sa/simg/favicon-trans-bg-blue-mg.ico');
      assert.ok(!data.links.some((l: string) => l.startsWith('https://uploads.quire.invalid/')));
    });

    it('<base href> first, then the canonical link, then og:url, else the upload URL', async () => {
      // No corpus page has more than one of them: small pages, one per case.
      const base = '<base href="https://base.example/docs/">';
      const canonical = '<link rel="canonical" href="https://canonical.example/articles/a1">';
      const og = '<meta property="og:url" content="https://og.example/posts/p1">';
      const page = (head: string) =>
        `<html><head>${head}</head><body><p><a href="next.html">Next</a></p></body></html>`;
      assert.deepEqual(await links(page(og + canonical + base)), ['https://base.example/docs/next.html']);
      assert.deepEqual(await links(page(og + canonical)), ['https://canonical.example/articles/next.html']);
      assert.deepEqual(await links(page(og)), ['https://og.example/posts/next.html']);
      assert.deepEqual(await links(page(''), 'my page.html'), ['https://uploads.quire.invalid/next.html']);
    });
  });

  describe('HTML: .htm and .xhtml uploads', () => {
    it('a .htm upload is parsed as HTML (the same bytes as .txt are plain text)', async () => {
      const fragment = '<p>Hello <b>world</b>, see <a href="https://example.org/x">the page</a>.</p>\n';
      const htm = await dataOf({ bytes: fragment, filename: 'note.htm' });
      assert.equal(htm.markdown, 'Hello **world**, see [the page](https://example.org/x).');
      assert.match(htm.metadata.contentType, /^text\/html/);
      const txt = await dataOf({ bytes: fragment, filename: 'note.txt' });
      assert.match(txt.metadata.contentType, /^text\/plain/);
      assert.doesNotMatch(txt.markdown, /\*\*world\*\*/);
    });

    it('a .xhtml upload is parsed as HTML (the same bytes as .xml are a code block)', async () => {
      // A real XHTML page: a chapter of the corpus EPUB (unzip -p pandoc-formatting.epub
      // EPUB/xhtml/styling-xhtml-003.xhtml): <title>Multi-column layout</title>, an <h2> and
      // two "Lorem ipsum" paragraphs in a div.
      const bytes = packagePart('epub/pandoc-formatting.epub', 'EPUB/xhtml/styling-xhtml-003.xhtml');
      assert.match(bytes.toString('utf8'), /^<\?xml [^>]*\?>\s*<!DOCTYPE html>/);
      const xhtml = await dataOf({ bytes, filename: 'chapter.xhtml' }, { onlyMainContent: false });
      assert.match(xhtml.metadata.contentType, /^text\/html/);
      assert.equal(xhtml.metadata.title, 'Multi-column layout');
      assert.equal(xhtml.metadata.language, 'en');
      assert.match(xhtml.markdown, /^## \[REQUIRED\] style-110 Multi-Column Layouts$/m);
      assert.match(xhtml.markdown, /^Lorem ipsum dolor sit amet, consectetur adipisicing elit/m);
      assert.doesNotMatch(xhtml.markdown, /<\?xml|<html|```/);
      const xml = await dataOf({ bytes, filename: 'chapter.xml' });
      assert.match(xml.markdown, /^```xml\n<\?xml/);
    });
  });

  describe('spreadsheets', () => {
    it('XLSM: sheets are read, macros never shown; a lone Sheet1 gets no heading', async () => {
      // poi-testNames.xlsm has one sheet, "Sheet1" (unzip -p … xl/workbook.xml); its text-only
      // reference lists "25 | _abc | _abc2", "13 | 14 | 15", "16 | 17 | 18", … "#NAME?" … "3.72".
      const names = await dataOf(corpusFile('xlsm/poi-testNames.xlsm'));
      assert.equal(names.metadata.contentType, 'application/vnd.ms-excel.sheet.macroenabled.12');
      const md: string = names.markdown;
      assert.doesNotMatch(md, /^#/m);
      assert.match(md, /^\| 25 \| _abc \| _abc2 \|/);
      assert.match(md, /^\| +\| 13 \| 14 \| 15 \|$/m);
      assert.match(md, /^\| #NAME\? \|/m);
      assert.match(md, /^\| 3\.72 \|\n\| --- \|\n\| 234 \|$/m);
      // poi-SimpleMacro.xlsm holds xl/vbaProject.bin and "This is a macro workbook" in Sheet1
      // (Sheet2 and Sheet3 are empty): the text alone comes out.
      assert.ok(packagePart('xlsm/poi-SimpleMacro.xlsm', 'xl/vbaProject.bin').length > 0);
      const macro = await dataOf(corpusFile('xlsm/poi-SimpleMacro.xlsm'));
      assert.equal(macro.markdown, 'This is a macro workbook');
    });

    /** A workbook written by SheetJS as Excel 5.0/95 (BIFF5): the corpus has no BIFF5 file. */
    function biff5(sheets: [string, unknown[][]][]): Uint8Array {
      const wb = XLSX.utils.book_new();
      for (const [name, rows] of sheets)
        XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), name);
      const bytes = XLSX.write(wb, { type: 'buffer', bookType: 'biff5' }) as Uint8Array;
      // It is BIFF5: a "Book" stream (BIFF8 calls it "Workbook") opening with a BOF record of
      // version 0x0500 (BIFF8: 0x0600).
      const ole = CFB.read(Buffer.from(bytes), { type: 'buffer' });
      assert.equal(CFB.find(ole, 'Workbook'), null);
      const book = Buffer.from(CFB.find(ole, 'Book')!.content as Uint8Array);
      assert.equal(book.readUInt16LE(0), 0x0809);
      assert.equal(book.readUInt16LE(4), 0x0500);
      return bytes;
    }

    it('pre-97 XLS (Excel 5/95, BIFF5): one ## section per sheet; a lone Sheet1 gets none', async () => {
      const two = await dataOf({
        bytes: biff5([
          [
            'Sales',
            [
              ['Region', 'Units'],
              ['North', 1200],
              ['South', 850],
            ],
          ],
          ['Notes', [['Note'], ['Old format']]],
        ]),
        filename: 'old.xls',
      });
      assert.equal(two.metadata.contentType, 'application/vnd.ms-excel');
      assert.equal(
        two.markdown,
        '## Sales\n\n| Region | Units |\n| --- | --- |\n| North | 1200 |\n| South | 850 |\n\n## Notes\n\n| Note |\n| --- |\n| Old format |',
      );
      const lone = await dataOf({
        bytes: biff5([
          [
            'Sheet1',
            [
              ['Region', 'Units'],
              ['North', 1200],
            ],
          ],
        ]),
        filename: 'lone.xls',
      });
      assert.equal(lone.markdown, '| Region | Units |\n| --- | --- |\n| North | 1200 |');
      // With several sheets a default name is a heading like any other: markitdown-test.xlsx
      // starts with "## Sheet1" (parse-spreadsheets.test.ts).
    });
  });

  describe('options on documents', () => {
    it('removeBase64Images: false puts the pictures in the Markdown as data: URIs', async () => {
      // docling-docx_vml_images.docx embeds word/media/image1.png and image2.png (unzip -l),
      // shown between "Below is a VML image with v:imagedata:" and "Above is ...".
      const file = corpusFile('docx/docling-docx_vml_images.docx');
      const data = await dataOf(file, { formats: ['markdown', 'images'], removeBase64Images: false });
      const uris = [1, 2].map(
        (n) =>
          `data:image/png;base64,${packagePart('docx/docling-docx_vml_images.docx', `word/media/image${n}.png`).toString('base64')}`,
      );
      assert.deepEqual(data.images, uris);
      assert.ok(data.markdown.includes(`Below is a VML image with v:imagedata:\n\n![](${uris[0]})\n\nAbove`));
      assert.ok(data.markdown.includes(`Below is another VML image:\n\n![](${uris[1]})\n\nAbove`));
      assert.doesNotMatch(data.markdown, /Base64-Image-Removed/);
    });

    it('includeTags, excludeTags and onlyMainContent leave documents whole', async () => {
      // The README ties these options to web pages (Main content); a document comes back as
      // it is, as upstream's parse does.
      const file = corpusFile('docx/docling-unit_test_headers.docx');
      const plain = await dataOf(file, { formats: ['markdown', 'html'] });
      assert.match(plain.markdown, /^# Test Document\n\n## Section 1\n\nParagraph 1\.1/m);
      for (const options of [
        { includeTags: ['table'] },
        { excludeTags: ['h1', 'h2', 'p'] },
        { onlyMainContent: false },
      ]) {
        const filtered = await dataOf(file, { formats: ['markdown', 'html'], ...options });
        assert.equal(filtered.markdown, plain.markdown, JSON.stringify(options));
        assert.equal(filtered.html, plain.html, JSON.stringify(options));
      }
    });
  });

  describe('PDF', () => {
    it('keeps the text that free-text notes and stamps draw', async () => {
      // No corpus PDF has a FreeText or Stamp annotation (their streams, inflated, name
      // neither): a page with one of each, each drawing its text in its appearance stream
      // (/AP /N), which the page's own content does not hold. pdftotext (poppler) prints the
      // same three lines.
      const appearance = (text: string, width: number) =>
        stream(
          `/Type /XObject /Subtype /Form /BBox [0 0 ${width} 30] /Resources << /Font << /F1 ${helvetica} >> >>`,
          `BT /F1 12 Tf 4 8 Td (${text}) Tj ET`,
        );
      const pdf = buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 ${helvetica} >> >> /Annots [5 0 R 6 0 R] >>`,
        stream('', 'BT /F1 12 Tf 72 720 Td (Text of the page itself.) Tj ET'),
        '<< /Type /Annot /Subtype /FreeText /Rect [72 600 372 630] /F 4 /Contents (Typed note about the budget) /DA (/F1 12 Tf 0 g) /AP << /N 7 0 R >> >>',
        '<< /Type /Annot /Subtype /Stamp /Rect [72 500 272 530] /F 4 /Name /Approved /AP << /N 8 0 R >> >>',
        appearance('Typed note about the budget', 300),
        appearance('APPROVED BY FINANCE', 200),
      ]);
      for (const mode of ['fast', 'auto']) {
        const data = await dataOf(
          { bytes: pdf, filename: 'annotated.pdf' },
          { parsers: [{ type: 'pdf', mode }] },
        );
        assert.equal(
          data.markdown,
          'Text of the page itself.\n\nTyped note about the budget\n\nAPPROVED BY FINANCE',
          mode,
        );
      }
    });

    /**
     * A PDF of `count` pages, page i holding one sentence and one linked line made of words
     * picked by i, so that no line repeats on another page; and 1 MB of unused padding, so
     * that the second thread is started while the file opens (limits.pdfWarmHelperBytes) and
     * takes part in the reading. Returns the file and the Markdown each page must give.
     */
    function distinctPages(count: number): { bytes: Uint8Array; pages: string[] } {
      const words =
        'amber basil cedar delta ember fjord grove heron indigo juniper kestrel lagoon meadow nectar orchid pebble quartz raven saffron tundra umber violet willow yarrow zephyr'.split(
          ' ',
        );
      const objects = ['<< /Type /Catalog /Pages 2 0 R >>', ''];
      const kids: string[] = [];
      const pages: string[] = [];
      for (let i = 0; i < count; i++) {
        const [a, b, c] = [words[i % 25]!, words[(Math.floor(i / 25) + 3) % 25]!, words[(i * 7 + 11) % 25]!];
        const sentence = `Entry ${a} ${b} ${c} opens with ${b}${a} and closes here.`;
        const linked = `Read the ${c} ${a} notes.`;
        const url = `https://example.org/${a}/${b}/${i + 1}`;
        const n = objects.length + 1;
        objects.push(
          `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${n + 1} 0 R /Resources << /Font << /F1 ${helvetica} >> >> /Annots [${n + 2} 0 R] >>`,
          stream('', `BT /F1 11 Tf 72 700 Td (${sentence}) Tj ET BT /F1 11 Tf 72 660 Td (${linked}) Tj ET`),
          `<< /Type /Annot /Subtype /Link /Rect [70 655 300 675] /Border [0 0 0] /A << /S /URI /URI (${url}) >> >>`,
        );
        kids.push(`${n} 0 R`);
        pages.push(`${sentence}\n\n[${linked}](${url})`);
      }
      objects.push(stream('', ' '.repeat(1_000_000)));
      objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${count} >>`;
      return { bytes: buildPdf(objects), pages };
    }

    it('reads a 352-page book on two threads exactly as on one thread', async () => {
      // QUIRE_PDF_THREADS=1 (src/convert/pdf/read-pages.ts) reads every page on one thread and
      // starts no helper; the suite's servers run with QUIRE_PDF_THREADS=2 whatever the
      // machine. The same book, the same options, on a server of each: the only difference is
      // which thread reads which page, so the answers must be equal, Markdown, warning and
      // metadata (the scrape id aside). Should the knob go, this test must not pass comparing
      // one thread with one thread.
      const readPages = fs.readFileSync(path.join(repoRoot, 'src/convert/pdf/read-pages.ts'), 'utf8');
      assert.match(readPages, /process\.env\.QUIRE_PDF_THREADS/);
      const book = corpusFile('pdf/big/pjs-freeculture-352p.pdf');
      const single = await startServer({ QUIRE_WORKERS: '1', QUIRE_PDF_THREADS: '1' });
      try {
        // Both read at once on a machine running other tests: the deadline is room, not a claim.
        const options = { timeout: 100_000 };
        const answers = await Promise.all([server(), single].map((s) => parse(s, { file: book, options })));
        for (const { status, body } of answers) assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
        const [two, one] = answers.map(({ body }) => {
          const { scrapeId, ...metadata } = body.data.metadata;
          assert.match(scrapeId, /^[0-9a-f-]{36}$/);
          return { ...body.data, metadata };
        });
        assert.equal(two!.metadata.numPages, 352);
        assert.ok(two!.markdown.length > 600_000);
        assert.equal(two!.markdown, one!.markdown);
        assert.deepEqual(two, one);
      } finally {
        await single.stop();
      }
    });

    it('reads 60 pages or more on two threads with the same output as one thread, on one server', async () => {
      // With QUIRE_PDF_THREADS=2 (the suite's servers) the thread count is the number of pages
      // parsed (60 or more: two threads, limits.pdfParallelPages; OCR mode: one). So one 100-page file is
      // parsed twice: its first 59 pages (maxPages 59: one thread) and
      // all of it (two threads sharing pages 5-100 from a counter; pages 1-4 are always read
      // by the first). The comparison is exact because nothing here joins pages in a way the
      // page count could change: each page is laid out alone from its own content and the
      // reading state, which pages 1-4 settle the same way in both runs (their links show
      // other text than their URL, so every page's links are read); no line repeats on
      // another page (no running headers), all text is one size (no headings), and every page
      // ends its sentences (no paragraph runs on across a page). So both answers must be,
      // character for character, the pages' own text in order, links included, whichever
      // thread read each page. (Which one did is not visible over HTTP; in trials the second
      // thread read about a third of the pages, several of them among the first 59.)
      const { bytes, pages } = distinctPages(100);
      const file = { bytes, filename: 'hundred.pdf' };
      const one = await dataOf(file, { parsers: [{ type: 'pdf', maxPages: 59 }] });
      assert.equal(one.metadata.numPages, 59);
      assert.equal(one.markdown, pages.slice(0, 59).join('\n\n'));
      const two = await dataOf(file, { parsers: [{ type: 'pdf' }] });
      assert.equal(two.metadata.numPages, 100);
      assert.equal(two.warning, undefined);
      assert.ok(two.markdown.startsWith(`${one.markdown}\n\n`));
      assert.equal(two.markdown, pages.join('\n\n'));
    });
  });
});

const queueCheckedPerProcess = embeddedOnly(
  'three requests sent at once: a cluster checks QUIRE_QUEUE_SIZE as each job is queued in Redis, so requests arriving together can pass it by a few (README, Cluster mode); cluster.test.ts checks the limit with jobs queued one after another',
);

describe('README claims: the conversion queue', queueCheckedPerProcess, () => {
  const server = useServer({ QUIRE_WORKERS: '1', QUIRE_QUEUE_SIZE: '1', QUIRE_TEAM_CONCURRENCY: '8' });

  it('answers 429 with Retry-After once the workers and QUIRE_QUEUE_SIZE waiting conversions are taken', async () => {
    // One worker and one queue place: of three conversions sent at once, one runs, one waits
    // and one is refused, provided none ends before all three are in. Each OCRs every page of
    // the 352-page book (minutes of Tesseract) under a 10 s timeout, so none can finish, and
    // all three uploads need only be read within those 10 s. The two not refused end on
    // their own: 408 at their timeout (the running one's worker is stopped, the waiting one
    // leaves the queue). No order is assumed: whichever arrives last is refused.
    const s: RunningServer = server();
    const book = corpusFile('pdf/big/pjs-freeculture-352p.pdf');
    const options = { parsers: [{ type: 'pdf', mode: 'ocr' }], timeout: 10_000 };
    const answers = await Promise.all([0, 1, 2].map(() => parse(s, { file: book, options })));
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(refused.length, 1, JSON.stringify(answers.map((a) => [a.status, a.body])));
    assert.deepEqual(Object.keys(refused[0]!.body), ['error']);
    assert.match(refused[0]!.body.error, /Too many documents are waiting/);
    assert.ok(Number(refused[0]!.headers.get('retry-after')) > 0);
    for (const other of answers.filter((a) => a.status !== 429)) {
      if (other.status === 200) continue;
      assert.equal(other.status, 408, JSON.stringify(other.body));
      assert.equal(other.body.code, 'SCRAPE_TIMEOUT');
    }
    // The queue is free again: the next parse is served.
    const after = await parse(s, { file: { bytes: '<p>served</p>', filename: 'after.html' } });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.data.markdown, 'served');
  });
});
