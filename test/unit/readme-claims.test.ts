import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as XLSX from '@e965/xlsx';
import CFB from 'cfb';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { buildPdf, stream } from '../helpers/pdf.ts';
import { corpusFile } from '../helpers/server.ts';

/**
 * README claims about what a document becomes (issue 13), each through the conversion pipeline
 * in the test's process, asserting on content whose source is named: a corpus file and what an
 * independent tool (unzip, grep, pdftotext) shows of it, or a file built here because the corpus
 * holds no such case. The claims about the API and the PDF threads are
 * test/http/readme-claims.test.ts's; the document-model claims are
 * convert-document-features.test.ts's.
 */

const helvetica = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';

/** The file of a zip package (EPUB, DOCX) from the corpus, read with the cfb library. */
function packagePart(corpusPath: string, part: string): Buffer {
  const pkg = CFB.read(Buffer.from(corpusFile(corpusPath).bytes), { type: 'buffer' });
  const entry = CFB.find(pkg, `/${part}`);
  assert.ok(entry, `${part} is in ${corpusPath}`);
  return Buffer.from(entry.content as Uint8Array);
}

describe('README claims', () => {
  async function dataOf(file: ConvertFile, options?: unknown) {
    return convert(file, options) as Promise<Record<string, any>>;
  }

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
  });
});
