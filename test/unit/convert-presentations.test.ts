import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { convert } from '../helpers/convert.ts';
import { editedPpt, lockedPpt } from '../helpers/ppt.ts';
import { reference, tableRows } from '../helpers/references.ts';
import { corpusFile } from '../helpers/server.ts';
import { zip } from '../helpers/zip.ts';

const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A one-slide PPTX: a title and a picture linked (not embedded) from `pictureUrl`. */
function linkedPictureDeck(pictureUrl: string): Buffer {
  const rel = (id: string, type: string, target: string, external = false) =>
    `<Relationship Id="${id}" Type="${R}/${type}" Target="${target}"${external ? ' TargetMode="External"' : ''}/>`;
  return zip([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data: `<Relationships xmlns="${RELS}">${rel('rId1', 'officeDocument', 'ppt/presentation.xml')}</Relationships>`,
    },
    {
      name: 'ppt/presentation.xml',
      data: `<p:presentation xmlns:p="${P}" xmlns:r="${R}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`,
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: `<Relationships xmlns="${RELS}">${rel('rId2', 'slide', 'slides/slide1.xml')}</Relationships>`,
    },
    {
      name: 'ppt/slides/slide1.xml',
      data:
        `<p:sld xmlns:p="${P}" xmlns:a="${A}" xmlns:r="${R}"><p:cSld><p:spTree>` +
        '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/>' +
        '<p:txBody><a:bodyPr/><a:p><a:r><a:t>Linked picture</a:t></a:r></a:p></p:txBody></p:sp>' +
        '<p:pic><p:nvPicPr><p:cNvPr id="3" name="Picture" descr="A chart from the network"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>' +
        '<p:blipFill><a:blip r:link="rIdPicture"/></p:blipFill><p:spPr/></p:pic>' +
        '</p:spTree></p:cSld></p:sld>',
    },
    {
      name: 'ppt/slides/_rels/slide1.xml.rels',
      data: `<Relationships xmlns="${RELS}">${rel('rIdPicture', 'image', pictureUrl, true)}</Relationships>`,
    },
  ]);
}

/** Real slide decks from the shared corpus, converted in this process, asserting on what they say. */
describe('presentations', () => {
  async function dataOf(
    file: string | { bytes: Uint8Array; filename: string },
    options: Record<string, unknown> = {},
  ): Promise<Record<string, any>> {
    return convert(typeof file === 'string' ? corpusFile(file) : file, options);
  }

  it('PPTX: slides in order with titles, tables, nested shapes and pictures', async () => {
    const data = await dataOf('pptx/markitdown-test.pptx', { formats: ['markdown', 'images'] });
    assert.equal(
      data.metadata.contentType,
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    );
    const md: string = data.markdown;
    // markitdown's own test vectors for this deck.
    const vectors = JSON.parse(reference('pptx/markitdown-test.pptx.vectors.json'));
    for (const text of vectors.mustInclude) assert.ok(md.includes(text), `missing: ${text}`);
    for (const text of vectors.mustNotInclude) assert.ok(!md.includes(text), `present: ${text}`);
    // The rules (README): a `<!-- Slide number: N -->` section per slide, in order, with its
    // title as `##`; tables as GFM tables, their first row the header; pictures as their
    // description, the bytes in `images`. What each slide holds is in ppt/slides/slideN.xml.
    const slides = [...md.matchAll(/<!-- Slide number: (\d+) -->/g)].map((m) => Number(m[1]));
    assert.deepEqual(slides, [1, 2, 3, 4, 5, 6]);
    // Slide 1's centred title placeholder.
    assert.match(md, /^## AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation$/m);
    // Slide 3's table (a:tbl), its first two rows.
    assert.match(
      md,
      /^\| ColA \| ColB \| ColC \| ColD \| ColE \| ColF \|\n\| - \| - \| - \| - \| - \| - \|\n\| 1 \| 2 \| 3 \| 4 \| 5 \| 6 \|$/m,
    );
    // Slide 5's text inside a group shape (p:grpSp).
    assert.match(md, /This is a nested shape with content in 2 shapes/);
    // Slide 6's picture, described (descr) "This phrase of the caption is Human-written.".
    assert.match(md, /!\[This phrase of the caption is Human-written\.\]\(<Base64-Image-Removed>\)/);
    assert.ok(data.images.some((src: string) => src.startsWith('data:image/')));
  });

  it('ODP: charts as tables, merged cells as an HTML table', async () => {
    const data = await dataOf('odp/docling-odf_presentation_02.odp');
    assert.equal(data.metadata.contentType, 'application/vnd.oasis.opendocument.presentation');
    const md: string = data.markdown;
    /** The rows of the first table after `heading`. */
    const tableAfter = (text: string, heading: RegExp) => {
      const from = text.search(heading);
      assert.ok(from >= 0, `no ${heading} in:\n${text}`);
      const table = /(?:^\|.*\n?)+/m.exec(text.slice(from));
      return tableRows(table?.[0] ?? '');
    };
    // The chart's data as the reference (docling's) has it under "# Chart".
    const expected = tableAfter(reference('odp/docling-odf_presentation_02.odp.expected.md'), /^# Chart$/m);
    assert.equal(expected.length, 5);
    assert.deepEqual(tableAfter(md, /^## Chart$/m), expected);
    // The merged cell says what it covers, rows 1-3 and columns 2-3: a GFM table cannot span,
    // so the slide's table is HTML.
    assert.match(md, /<tr><td>Row 1<\/td><td colspan="2" rowspan="3">Merged cells row 1-3, col 2-3<\/td>/);
  });

  it('PPT: slide text, bullets and speaker notes under a label', async () => {
    const data = await dataOf('ppt/poi-basic_test_ppt_file.ppt');
    assert.equal(data.metadata.contentType, 'application/vnd.ms-powerpoint');
    // The slides' text as LibreOffice's reference has it, a block per slide. Its text export
    // leaves the notes out: they are those Apache POI's own test of this file expects
    // (TestExtractor.testReadNoteText).
    const [first, second] = reference('ppt/poi-basic_test_ppt_file.ppt.expected.txt')
      .trim()
      .split('\n\n')
      .map((block) => block.split('\n'));
    const notes = [
      'These are the notes for page 1',
      'These are the notes on page two, again lacking formatting',
    ];
    // The rules: each slide opens with its number and its title as `##`; a subtitle's lines are
    // paragraphs and a body placeholder's are list items (its master bullets them); the notes
    // follow under **Notes:** (README). Slide 1 holds a title and a subtitle, slide 2 a title
    // and a body.
    assert.equal(
      data.markdown,
      [
        '<!-- Slide number: 1 -->',
        `## ${first![0]}`,
        ...first!.slice(1),
        '**Notes:**',
        notes[0],
        '<!-- Slide number: 2 -->',
        `## ${second![0]}`,
        second!
          .slice(1)
          .map((line) => `- ${line}`)
          .join('\n'),
        '**Notes:**',
        notes[1],
      ].join('\n\n'),
    );
  });

  it('PPT: grouped shapes and hyperlinks, masters left out', async () => {
    const md: string = (await dataOf('ppt/tika-testPPT_groups.ppt')).markdown;
    // Every line of the reference, in its order, each a paragraph (or the title) of its own.
    const lines = md
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .split('\n')
      .map((line) => line.replace(/^## /, ''));
    const at = reference('ppt/tika-testPPT_groups.ppt.expected.txt')
      .trim()
      .split('\n')
      .map((line) => lines.indexOf(line));
    assert.ok(
      at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!)),
      JSON.stringify(at),
    );
    // The link the file's text box carries; no placeholder text from the masters.
    assert.match(md, /\[tika link\]\(http:\/\/tika\.apache\.org\/\)/);
    assert.doesNotMatch(md, /Click to edit/);
  });

  it('PPT: a password-protected deck is refused with ENCRYPTED_DOCUMENT', async () => {
    await assert.rejects(convert({ bytes: lockedPpt(), filename: 'locked.ppt' }), {
      code: 'ENCRYPTED_DOCUMENT',
      message: /password-protected/,
    });
  });

  it('PPT: a record claiming more bytes than the stream holds costs a warning, not the deck', async () => {
    // The newest copy of slide 2's container (a fast-saved deck keeps older ones) at 9982.
    const bytes = editedPpt('PowerPoint Document', (stream) => {
      assert.equal(stream.readUInt16LE(9982 + 2), 0x03ee);
      stream.writeUInt32LE(0x7fffffff, 9982 + 4);
    });
    const data = await dataOf({ bytes, filename: 'damaged.ppt' });
    assert.match(data.markdown, /^## This is a test title$/m);
    assert.match(data.markdown, /^## This is the title on page 2$/m);
    assert.match(data.warning, /truncated or damaged; the readable part was converted/);
  });

  it('PPTX: a linked picture stays a link and is never fetched', async () => {
    let requests = 0;
    const listener = http.createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/chart.png`;
      const data = await dataOf({ bytes: linkedPictureDeck(url), filename: 'linked.pptx' });
      assert.match(data.markdown, /^## Linked picture$/m);
      assert.ok(data.markdown.includes(`![A chart from the network](${url})`), data.markdown);
      assert.equal(requests, 0);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('PPTM: the deck converts, its macros are neither run nor shown', async () => {
    const data = await dataOf('pptm/tika-testPPT_macros.pptm');
    assert.equal(data.metadata.contentType, 'application/vnd.ms-powerpoint.presentation.macroenabled.12');
    // The reference's only text, the slide's title.
    const title = reference('pptm/tika-testPPT_macros.pptm.expected.txt').trim();
    assert.equal(title, 'The quick');
    assert.match(data.markdown, new RegExp(`^## ${title}$`, 'm'));
    assert.doesNotMatch(data.markdown, /Sub |End Sub|Attribute VB_/);
  });
});
