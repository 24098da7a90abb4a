import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { convert } from '../helpers/convert.ts';
import { corpusDir, corpusFile } from '../helpers/server.ts';
import { zip } from '../helpers/zip.ts';

/**
 * An EPUB 3 with one chapter per body given (XHTML body content, in spine order) and the given
 * files (images) in its manifest, all under OEBPS/; chapters live in OEBPS/text/.
 */
function epub(
  chapters: readonly string[],
  files: readonly { path: string; mediaType: string; data: Uint8Array }[],
) {
  const manifest = [
    ...chapters.map(
      (_, i) => `<item id="ch${i + 1}" href="text/ch${i + 1}.xhtml" media-type="application/xhtml+xml"/>`,
    ),
    ...files.map((f, i) => `<item id="file${i + 1}" href="${f.path}" media-type="${f.mediaType}"/>`),
  ];
  return zip([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data:
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">' +
        '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    },
    {
      name: 'OEBPS/content.opf',
      data:
        '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">' +
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">quire-test-book</dc:identifier>' +
        '<dc:title>Pictures</dc:title><dc:language>en</dc:language></metadata>' +
        `<manifest>${manifest.join('')}</manifest>` +
        `<spine>${chapters.map((_, i) => `<itemref idref="ch${i + 1}"/>`).join('')}</spine></package>`,
    },
    ...chapters.map((body, i) => ({
      name: `OEBPS/text/ch${i + 1}.xhtml`,
      data: `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapter ${i + 1}</title></head><body>${body}</body></html>`,
    })),
    ...files.map((f) => ({ name: `OEBPS/${f.path}`, data: f.data })),
  ]);
}

/** Real documents from the shared corpus, converted in this process, asserting on what they say. */
describe('word-processing documents', () => {
  async function markdownOf(
    file: string,
    options: Record<string, unknown> = {},
  ): Promise<Record<string, any>> {
    return convert(corpusFile(file), options);
  }

  describe('DOCX and DOCM', () => {
    it('keeps nested lists and resumes numbering after an interruption', async () => {
      const lists: string = (await markdownOf('docx/pandoc-lists.docx')).markdown;
      assert.match(lists, /^1\. one\n2\. two\n {3}1\. a\n {3}2\. b$/m);
      assert.match(lists, /^- two\n {2}- three\n {4}- four$/m);
      const resumed: string = (await markdownOf('docx/docling-docx_list_resumed_numbering.docx')).markdown;
      assert.match(resumed, /^- bullet two\n\n3\. Third ordered item$/m);
    });

    it('renders equations as LaTeX, also inside table cells', async () => {
      const data = await markdownOf('docx/docling-table_with_equations.docx');
      assert.equal(
        data.metadata.contentType,
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      );
      assert.match(data.markdown, /\| The next cell has an equation \| \$A=\\pi r\^\{2\}\$ \|/);
      assert.match(data.markdown, /\\frac\{-b\\pm\\sqrt\{b\^\{2\}-4ac\}\}\{2a\}/);
      const display: string = (await markdownOf('docx/docling-omml_func_log.docx')).markdown;
      assert.match(display, /^\$\$y = \\log\\left\(x\\right\)\$\$$/m);
    });

    it('reads headings from styles and footnotes from footnotes.xml', async () => {
      const headings: string = (await markdownOf('docx/docling-unit_test_headers.docx')).markdown;
      assert.match(headings, /^# Test Document\n\n## Section 1\n\nParagraph 1\.1/m);
      assert.match(headings, /^### Section 1\.1$/m);
      const notes: string = (await markdownOf('docx/mammoth-footnotes.docx')).markdown;
      assert.match(notes, /^Ouch\[\^1\]\.\[\^2\]$/m);
      assert.match(notes, /^\[\^1\]: A tachyon walks into a bar\.$/m);
    });

    it('leaves page headers and footers out of the body', async () => {
      const md: string = (await markdownOf('docx/docling-docx_page_header_footer_first_page.docx')).markdown;
      assert.match(md, /This is body text on page 2\./);
      assert.doesNotMatch(md, /FIRST PAGE HEADER|REGULAR HEADER|FOOTER \(/);
    });

    it('embeds pictures: alt-text placeholder in Markdown, data URI in images', async () => {
      const data = await markdownOf('docx/docling-docx_vml_images.docx', { formats: ['markdown', 'images'] });
      assert.match(data.markdown, /!\[[^\]]*\]\(<Base64-Image-Removed>\)/);
      assert.ok(data.images.length >= 1);
      for (const src of data.images as string[])
        assert.match(src, /^data:image\/[a-z+-]+;base64,[A-Za-z0-9+/]{40}/);
    });

    it('converts a macro-enabled document without running or showing its macros', async () => {
      const data = await markdownOf('docm/poi-SimpleMacro.docm');
      assert.equal(data.metadata.contentType, 'application/vnd.ms-word.document.macroenabled.12');
      assert.match(data.markdown, /This is a macro word processing document/);
      assert.doesNotMatch(data.markdown, /Sub |End Sub|Attribute VB_/);
    });
  });

  describe('DOC (Word 97-2003)', () => {
    it('keeps paragraphs and tables in reading order', async () => {
      const data = await markdownOf('doc/poi-simple-table.doc');
      assert.equal(data.metadata.contentType, 'application/msword');
      const md: string = data.markdown;
      assert.match(
        md,
        /\| Cell 1,1 \| Cell 1,2 \| Cell 1,3 \|\n\| - \| - \| - \|\n\| Cell 2,1 \| Cell 2,2 \| Cell 2,3 \|/,
      );
      assert.ok(md.indexOf('final paragraph') < md.indexOf('Cell 1,1'));
      assert.ok(md.indexOf('Cell 2,3') < md.indexOf('This text is below the table.'));
    });

    it('reads headings from localized built-in styles', async () => {
      const md: string = (await markdownOf('doc/docling-greek_heading_styles.doc')).markdown;
      assert.match(md, /^# Überschriften in nicht‑englischer Sprache$/m);
      assert.match(md, /^## Vorgeschlagene Änderung$/m);
    });

    it('keeps lists, footnotes and hyperlinks', async () => {
      const data = await markdownOf('doc/tika-testWORD_various.doc');
      const md: string = data.markdown;
      assert.match(md, /^- Bullet 1\n- Bullet 2\n- Bullet 3$/m);
      assert.match(md, /^1\. Number bullet 1\n2\. Number bullet 2\n3\. Number bullet 3$/m);
      assert.match(md, /Footnote appears here\[\^1\]/);
      assert.match(md, /^\[\^1\]: .+/m);
      assert.match(md, /\[This is a hyperlink\]\(http:\/\/tika\.apache\.org\/\)/);
    });

    it('drops tracked deletions, keeping the text around them', async () => {
      // LibreOffice's text reference keeps the document's tracked changes unaccepted. Its three
      // deletions, found by listing the runs the DOC marks deleted (sprmCFRMarkDel), are
      // "bibendum ", "Donec " and the second "ad litora" (the first is ordinary text). With them
      // accepted, the rest of the paragraph must read as the reference does.
      const reference = fs
        .readFileSync(path.join(corpusDir, 'doc/tika-testWORD_features.doc.expected.txt'), 'utf8')
        .split('\n')[0]!;
      const deletions: [string, string][] = [
        ['fringilla, bibendum est eu', 'fringilla, est eu'],
        ['While Donec euismod', 'While euismod'],
        ['taciti sociosquad litoratorquent', 'taciti sociosqutorquent'],
      ];
      let accepted = reference;
      for (const [before, after] of deletions) {
        assert.ok(accepted.includes(before), `the reference reads "${before}"`);
        accepted = accepted.replace(before, after);
      }
      const md: string = (await markdownOf('doc/tika-testWORD_features.doc')).markdown;
      assert.equal(md.split('\n\n')[0], accepted);
      assert.doesNotMatch(md, /bibendum|Donec|~~/);
    });
  });

  describe('ODT', () => {
    it('keeps nested ordered lists with their numbering', async () => {
      const data = await markdownOf('odt/pandoc-orderedListRoman.odt');
      assert.equal(data.metadata.contentType, 'application/vnd.oasis.opendocument.text');
      const md: string = data.markdown;
      assert.match(md, /^3\. A third\n {3}1\. New level!\n {6}1\. And another!/m);
      assert.match(md, /^4[.)] Start new list, but a different starting point\.$/m);
    });

    it('renders footnotes as GFM footnotes and tables as tables', async () => {
      const note: string = (await markdownOf('odt/pandoc-footnote.odt')).markdown;
      assert.equal(note, 'Some text[^1] with a footnote.\n\n[^1]: Footnote text');
      const table: string = (await markdownOf('odt/pandoc-tableWithContents.odt')).markdown;
      assert.match(table, /\| A \| B \|\n\| - \| - \|\n\| C \| D \|/);
    });

    it('reads document properties from meta.xml', async () => {
      const { metadata } = await markdownOf('odt/tika-testStyles.odt');
      assert.equal(typeof metadata.created, 'string');
      assert.ok(!Number.isNaN(Date.parse(metadata.created)));
    });
  });

  describe('RTF', () => {
    it('decodes code pages and Unicode escapes', async () => {
      const data = await markdownOf('rtf/pandoc-accent.rtf');
      assert.equal(data.metadata.contentType, 'application/rtf');
      assert.equal(data.markdown, 'le café où on ne fume pas');
      assert.match((await markdownOf('rtf/pandoc-unicode.rtf')).markdown, /“hi”‘hi’\p{Co}?αä/u);
    });

    it('keeps tables, legacy lists and multi-paragraph list items', async () => {
      const table: string = (await markdownOf('rtf/pandoc-table_error_codes.rtf')).markdown;
      assert.match(table, /^\| Code \| Error \|\n\| - \| - \|\n\| 3 \| PandocFailOnWarningError \|$/m);
      const legacy: string = (await markdownOf('rtf/pandoc-list_legacy.rtf')).markdown;
      assert.match(legacy, /^1\. A\n2\. Numbered\n3\. List\n\n- A\n- Bulleted\n- List$/m);
      const multi: string = (await markdownOf('rtf/pandoc-list_multiparagraph.rtf')).markdown;
      assert.match(
        multi,
        /^- First item, paragraph one\.\n\n {2}First item, paragraph two\.\n- Second item\.$/m,
      );
    });

    it('turns HYPERLINK fields into links', async () => {
      const md: string = (await markdownOf('rtf/tika-testRTFHyperlinkAndStyles.rtf')).markdown;
      assert.match(md, /\[\*\*Dip, Caesar\.doc\*\*\]\(<[^>]+Dip, Caesar\.doc>\)/);
    });
  });

  describe('EPUB', () => {
    it('reads chapters in spine order with the book metadata', async () => {
      const data = await markdownOf('epub/pandoc-formatting.epub');
      assert.equal(data.metadata.contentType, 'application/epub+zip');
      assert.equal(data.metadata.title, 'EPUBTEST 0101 - Styling Tests');
      assert.ok(Array.isArray(data.metadata.author) && data.metadata.author.includes('Markus Gylling'));
      const md: string = data.markdown;
      assert.match(md, /^# EPUB 3 Styling Test Document: 0101$/m);
      const order = [
        '## Status of this Document',
        '# EPUB Style Sheets',
        '### The `list-style-type` property',
      ];
      const at = order.map((heading) => md.indexOf(`\n${heading}\n`));
      assert.ok(
        at.every((i, n) => i > 0 && (n === 0 || i > at[n - 1]!)),
        JSON.stringify(at),
      );
    });

    it('keeps embedded images: placeholder in Markdown, bytes in images', async () => {
      // No corpus book has pictures in its text, so this one is built here around real images.
      const red = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c81e1e' } })
        .png()
        .toBuffer();
      const blue = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#1e1ec8' } })
        .jpeg()
        .toBuffer();
      const book = epub(
        [
          '<h1>Pictures</h1><p>Before the picture.</p><p><img src="../images/red.png" alt="A red square"/></p>',
          // A cover-style SVG wrapper, then the first picture shown a second time.
          '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 4 3">' +
            '<title>A blue square</title><image width="4" height="3" xlink:href="../images/blue.jpg"/></svg>' +
            '<p><img src="../images/red.png" alt="The red square again"/></p><p>After the pictures.</p>',
        ],
        [
          { path: 'images/red.png', mediaType: 'image/png', data: red },
          { path: 'images/blue.jpg', mediaType: 'image/jpeg', data: blue },
        ],
      );
      const data = await convert(
        { bytes: book, filename: 'pictures.epub' },
        { formats: ['markdown', 'images'] },
      );
      // Each picture once, in reading order, as the bytes the book holds under its own type.
      assert.deepEqual(data.images, [
        `data:image/png;base64,${red.toString('base64')}`,
        `data:image/jpeg;base64,${blue.toString('base64')}`,
      ]);
      const md = data.markdown ?? '';
      const shown = [...md.matchAll(/!\[([^\]]*)\]\(<Base64-Image-Removed>\)/g)].map((m) => m[1]);
      assert.deepEqual(shown, ['A red square', 'A blue square', 'The red square again']);
      assert.ok(md.indexOf('Before the picture.') < md.indexOf('![A red square]'));
      assert.ok(md.indexOf('![The red square again]') < md.indexOf('After the pictures.'));
      assert.doesNotMatch(md, /data:image/);
    });
  });
});
