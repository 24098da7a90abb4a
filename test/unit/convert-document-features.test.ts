import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convert } from '../helpers/convert.ts';
import { para, R, run, W, wordPackage, wordTypes } from '../helpers/docx.ts';
import { corpusFile } from '../helpers/server.ts';
import { zip } from '../helpers/zip.ts';

/**
 * README claims about the document model ("Documents (everything but HTML) come out as one
 * tree"), converted in this process. Corpus files where the corpus has the case; where it has none (no DOCX
 * with check boxes, a nested table, endnotes or comments, no DOCX or ODT with its title,
 * subject, description and keywords filled in, no ODT with a formula: unzip and grep over
 * docx/, odt/), a small package written here, whose XML says what the output must hold. Each
 * built package was read with pandoc 2.17 as a check that it is a real document: pandoc finds
 * the check boxes (☒, ☐), the table in a cell, the notes and the formulas, and no comment in
 * the body.
 */

/** A check box content control as Word 2010+ writes it (w14:checkbox, showing ☒ or ☐). */
const checkBox = (checked: boolean) =>
  '<w:sdt><w:sdtPr><w14:checkbox>' +
  `<w14:checked w14:val="${checked ? 1 : 0}"/><w14:checkedState w14:val="2612" w14:font="MS Gothic"/><w14:uncheckedState w14:val="2610" w14:font="MS Gothic"/>` +
  `</w14:checkbox></w:sdtPr><w:sdtContent><w:r><w:t>${checked ? '☒' : '☐'}</w:t></w:r></w:sdtContent></w:sdt>`;
const cell = (...blocks: string[]) =>
  `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${blocks.join('')}</w:tc>`;
const table = (...rows: string[][]) =>
  `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr><w:tblGrid>${rows[0]!.map(() => '<w:gridCol w:w="2000"/>').join('')}</w:tblGrid>` +
  rows.map((cells) => `<w:tr>${cells.join('')}</w:tr>`).join('') +
  '</w:tbl>';

/**
 * A DOCX with two check box items, an endnote, a commented passage, a table holding a table
 * in a cell, and every core property the README lists.
 */
function featuresDocx(): Buffer {
  const inner = table(
    [cell(para(run('Inner 1'))), cell(para(run('Inner 2')))],
    [cell(para(run('Inner 3'))), cell(para(run('Inner 4')))],
  );
  const body = [
    para(checkBox(true), run(' Ship the release')),
    para(checkBox(false), run(' Write the notes')),
    para(
      run('Body text with an endnote'),
      '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:endnoteReference w:id="1"/></w:r>',
      run('.'),
    ),
    para(
      '<w:commentRangeStart w:id="0"/>',
      run('Commented words'),
      '<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>',
      run(' stay in the text.'),
    ),
    table(
      [cell(para(run('Outer A'))), cell(para(run('Outer B')))],
      [cell(para(run('Holds a table'))), cell(inner, para())],
    ),
    para(run('After the table.')),
  ].join('');
  return wordPackage({
    body,
    rels: [
      `<Relationship Id="rId1" Type="${R}/endnotes" Target="endnotes.xml"/>`,
      `<Relationship Id="rId2" Type="${R}/comments" Target="comments.xml"/>`,
    ],
    parts: [
      {
        name: 'word/endnotes.xml',
        contentType: wordTypes.endnotes,
        data:
          `<?xml version="1.0" encoding="UTF-8"?><w:endnotes xmlns:w="${W}">` +
          '<w:endnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:endnote>' +
          '<w:endnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:endnote>' +
          `<w:endnote w:id="1"><w:p><w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:endnoteRef/></w:r>${run(' The endnote text, at the end.')}</w:p></w:endnote>` +
          '</w:endnotes>',
      },
      {
        name: 'word/comments.xml',
        contentType: wordTypes.comments,
        data:
          `<?xml version="1.0" encoding="UTF-8"?><w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Rita Reviewer" w:date="2024-05-02T10:00:00Z" w:initials="RR">` +
          `${para(run('A reviewer remark that is no part of the text'))}</w:comment></w:comments>`,
      },
    ],
    core:
      '<dc:title>Quarterly Review</dc:title><dc:subject>Finance</dc:subject><dc:creator>Ada Author</dc:creator>' +
      '<cp:keywords>budget, review</cp:keywords><dc:description>Notes for the board</dc:description><dc:language>en-GB</dc:language>' +
      '<dcterms:created xsi:type="dcterms:W3CDTF">2024-01-15T09:30:00Z</dcterms:created>' +
      '<dcterms:modified xsi:type="dcterms:W3CDTF">2024-02-01T17:45:10Z</dcterms:modified>',
  });
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"';

/** An embedded LibreOffice Math object: MathML with its StarMath source as annotation. */
const formula = (display: 'inline' | 'block', mathml: string, starMath: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><math xmlns="http://www.w3.org/1998/Math/MathML" display="${display}"><semantics>${mathml}` +
  `<annotation encoding="StarMath 5.0">${starMath}</annotation></semantics></math>`;

/**
 * An ODT with an inline formula (A = πr²) and a display formula (the quadratic formula) as
 * embedded Math objects, an endnote, a comment (office:annotation), and every meta.xml field
 * the README lists.
 */
function featuresOdt(): Buffer {
  const frame = (object: string) =>
    `<draw:frame draw:name="${object}" svg:width="2cm" svg:height="0.5cm"><draw:object xlink:href="./${object}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;
  const content =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS} office:version="1.3"><office:body><office:text>` +
    `<text:p>The area of a circle is ${frame('Object 1')} for radius r.</text:p>` +
    `<text:p>${frame('Object 2')}</text:p>` +
    '<text:p>Endnote here<text:note text:id="en1" text:note-class="endnote"><text:note-citation>i</text:note-citation>' +
    '<text:note-body><text:p>The ODT endnote text.</text:p></text:note-body></text:note>.</text:p>' +
    '<text:p>Annotated<office:annotation><dc:creator>Rita Reviewer</dc:creator><dc:date>2024-05-02T10:00:00</dc:date>' +
    '<text:p>An ODF remark that is no part of the text</text:p></office:annotation> sentence.</text:p>' +
    '</office:text></office:body></office:document-content>';
  const meta =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-meta ${ODF_NS} office:version="1.3"><office:meta>` +
    '<dc:title>Field Report</dc:title><dc:subject>Survey</dc:subject><dc:description>Results of the spring survey</dc:description>' +
    '<meta:keyword>survey</meta:keyword><meta:keyword>spring</meta:keyword><dc:language>de-DE</dc:language>' +
    '<meta:initial-creator>Olga Writer</meta:initial-creator><dc:creator>Olga Writer</dc:creator>' +
    '<meta:creation-date>2023-03-01T08:00:00</meta:creation-date><dc:date>2023-03-05T12:30:15.250000000</dc:date>' +
    '</office:meta></office:document-meta>';
  const entry = (path: string, type: string) =>
    `<manifest:file-entry manifest:full-path="${path}" manifest:media-type="${type}"/>`;
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
    entry('/', 'application/vnd.oasis.opendocument.text') +
    ['content.xml', 'styles.xml', 'meta.xml', 'Object 1/content.xml', 'Object 2/content.xml']
      .map((p) => entry(p, 'text/xml'))
      .join('') +
    entry('Object 1/', 'application/vnd.oasis.opendocument.formula') +
    entry('Object 2/', 'application/vnd.oasis.opendocument.formula') +
    '</manifest:manifest>';
  return zip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true },
    { name: 'META-INF/manifest.xml', data: manifest },
    { name: 'content.xml', data: content },
    {
      name: 'styles.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${ODF_NS} office:version="1.3"><office:styles/></office:document-styles>`,
    },
    { name: 'meta.xml', data: meta },
    {
      name: 'Object 1/content.xml',
      data: formula(
        'inline',
        '<mrow><mi>A</mi><mo>=</mo><mi>π</mi><msup><mi>r</mi><mn>2</mn></msup></mrow>',
        'A = %pi r^2',
      ),
    },
    {
      name: 'Object 2/content.xml',
      data: formula(
        'block',
        '<mrow><mi>x</mi><mo>=</mo><mfrac><mrow><mo>−</mo><mi>b</mi><mo>±</mo><msqrt><mrow><msup><mi>b</mi><mn>2</mn></msup>' +
          '<mo>−</mo><mn>4</mn><mi>a</mi><mi>c</mi></mrow></msqrt></mrow><mrow><mn>2</mn><mi>a</mi></mrow></mfrac></mrow>',
        'x = {-b +- sqrt{b^2 - 4ac}} over {2a}',
      ),
    },
  ]);
}

describe('documents: one model, whatever the format', () => {
  async function dataOf(file: { bytes: Uint8Array; filename: string }): Promise<Record<string, any>> {
    return convert(file);
  }

  describe('DOCX (built: the corpus has none of these)', () => {
    const docx = () => dataOf({ bytes: featuresDocx(), filename: 'features.docx' });

    it('check boxes are task items, a table in a cell keeps both as HTML tables, endnotes are footnotes', async () => {
      const md: string = (await docx()).markdown;
      assert.match(md, /^- \[x\] Ship the release\n- \[ \] Write the notes$/m);
      // GFM cannot put a table in a cell: the outer table and the one inside are HTML.
      assert.ok(
        md.includes(
          '<table><tbody><tr><td>Outer A</td><td>Outer B</td></tr><tr><td>Holds a table</td><td>' +
            '<table><tbody><tr><td>Inner 1</td><td>Inner 2</td></tr><tr><td>Inner 3</td><td>Inner 4</td></tr></tbody></table>' +
            '</td></tr></tbody></table>',
        ),
        md,
      );
      assert.doesNotMatch(md, /^\| /m);
      assert.match(md, /^Body text with an endnote\[\^1\]\.$/m);
      assert.ok(md.endsWith('\n\n[^1]: The endnote text, at the end.'), md);
    });

    it('leaves comments out of the body and keeps the commented text', async () => {
      const md: string = (await docx()).markdown;
      assert.match(md, /^Commented words stay in the text\.$/m);
      assert.doesNotMatch(md, /reviewer remark|Rita Reviewer/i);
    });

    it('metadata from docProps/core.xml, dates as ISO 8601', async () => {
      const { metadata } = await docx();
      assert.deepEqual(
        {
          title: metadata.title,
          author: metadata.author,
          subject: metadata.subject,
          description: metadata.description,
          keywords: metadata.keywords,
          language: metadata.language,
          created: metadata.created,
          modified: metadata.modified,
        },
        {
          title: 'Quarterly Review',
          author: 'Ada Author',
          subject: 'Finance',
          description: 'Notes for the board',
          keywords: 'budget, review',
          language: 'en-GB',
          created: '2024-01-15T09:30:00.000Z',
          modified: '2024-02-01T17:45:10.000Z',
        },
      );
    });
  });

  describe('ODT (built: the corpus has no formula, and no title, subject or keywords)', () => {
    const odt = () => dataOf({ bytes: featuresOdt(), filename: 'features.odt' });

    it('formulas as LaTeX ($ inline, $$ alone in a paragraph), endnotes as footnotes, no comments', async () => {
      const md: string = (await odt()).markdown;
      assert.equal(
        md,
        'The area of a circle is $A=\\pi r^2$ for radius r.\n\n' +
          '$$x=\\frac{-b\\pm\\sqrt{b^2-4ac}}{2a}$$\n\n' +
          'Endnote here[^i].\n\n' +
          'Annotated sentence.\n\n' +
          '[^i]: The ODT endnote text.',
      );
    });

    it('metadata from meta.xml, dates as ISO 8601', async () => {
      const { metadata } = await odt();
      assert.equal(metadata.title, 'Field Report');
      assert.equal(metadata.author, 'Olga Writer');
      assert.equal(metadata.subject, 'Survey');
      assert.equal(metadata.description, 'Results of the spring survey');
      assert.equal(metadata.keywords, 'survey, spring');
      assert.equal(metadata.language, 'de-DE');
      // meta.xml has no zone: read as UTC, nanoseconds cut to milliseconds.
      assert.equal(metadata.created, '2023-03-01T08:00:00.000Z');
      assert.equal(metadata.modified, '2023-03-05T12:30:15.250Z');
    });
  });

  describe('DOC (corpus)', () => {
    it('metadata from the SummaryInformation stream, dates as ISO 8601', async () => {
      // `file` on tika-testWORD_various.doc: "Subject: Subject is here, Author: Michael
      // McCandless, Keywords: Keyword1 Keyword2, ... Create Time/Date: Fri Sep 2 10:11:00 2011,
      // Last Saved Time/Date: Fri Nov 24 00:12:58 2017" (file shows no fraction of a second).
      const various = (await dataOf(corpusFile('doc/tika-testWORD_various.doc'))).metadata;
      assert.equal(various.subject, 'Subject is here');
      assert.equal(various.author, 'Michael McCandless');
      assert.equal(various.keywords, 'Keyword1 Keyword2');
      assert.equal(various.created, '2011-09-02T10:11:00.000Z');
      assert.match(various.modified, /^2017-11-24T00:12:58\.\d{3}Z$/);
      // `file` on poi-simple-table.doc: "Title: This is a Word document that was created using
      // Word 97 ? SR2" (byte 0x96 in code page 1252, an en dash), "Author: Bob Otterberg".
      const table = (await dataOf(corpusFile('doc/poi-simple-table.doc'))).metadata;
      assert.equal(table.title, 'This is a Word document that was created using Word 97 – SR2');
      assert.equal(table.author, 'Bob Otterberg');
      assert.equal(table.created, '2003-03-11T22:12:00.000Z');
      assert.equal(table.modified, '2003-03-11T22:14:00.000Z');
    });

    it('leaves comments out of the body', async () => {
      // tika-testWORD_features.doc keeps its text as UTF-16: the main text ("Lorem ipsum …
      // inceptos himenaeos.", "This is hidden text.") and, after it, the comment story:
      // "This is another comment", "This is a comment". LibreOffice's text reference shows
      // the main text only.
      const file = corpusFile('doc/tika-testWORD_features.doc');
      const bytes = Buffer.from(file.bytes);
      for (const comment of ['This is a comment', 'This is another comment'])
        assert.ok(bytes.includes(Buffer.from(comment, 'utf16le')), comment);
      const md: string = (await dataOf(file)).markdown;
      assert.match(md, /^Lorem ipsum dolor sit amet, consectetur adipiscing elit\./);
      assert.match(md, /This is hidden text\.$/);
      assert.doesNotMatch(md, /This is (a|another) comment/);
    });
  });

  describe('EPUB (corpus)', () => {
    it('MathML as LaTeX', async () => {
      // pandoc-features.epub, EPUB/xhtml/content-mathml-001.xhtml (unzip -p): three display
      // <math> elements, the Gaussian integral, the Basel sum and the quadratic formula; the
      // corpus reference (pandoc's) writes them `\int_{- \infty}^{\infty}e^{- x^{2}}\, dx =
      // \sqrt{\pi}`, `\sum\limits_{n = 1}^{\infty}\frac{1}{n^{2}} = \frac{\pi^{2}}{6}` and
      // `x = \frac{- b \pm \sqrt{b^{2} - 4ac}}{2a}`.
      const md: string = (await dataOf(corpusFile('epub/pandoc-features.epub'))).markdown;
      assert.match(md, /^\$\$\\int_\{-\\infty\}\^\\infty e\^\{-x\^2\}\\,dx=\\sqrt\{\\pi\}\$\$$/m);
      assert.match(md, /^\$\$\\sum_\{n=1\}\^\\infty\\frac\{1\}\{n\^2\}=\\frac\{\\pi\^2\}\{6\}\$\$$/m);
      assert.match(md, /^\$\$x=\\frac\{-b\\pm\\sqrt\{b\^2-4ac\}\}\{2a\}\$\$$/m);
      assert.doesNotMatch(md, /<math|<mi>/);
    });
  });
});
