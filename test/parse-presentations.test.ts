import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { corpusFile, parse, useServer } from './helpers/server.ts';

/** Real slide decks from the shared corpus, through HTTP, asserting on what they say. */
describe('presentations', () => {
  const server = useServer({ QUIRE_WORKERS: '2' });

  async function dataOf(file: string, options: Record<string, unknown> = {}) {
    const { status, body } = await parse(server(), { file: corpusFile(file), options });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    return body.data;
  }

  it('PPTX: slides in order with titles, tables, nested shapes and pictures', async () => {
    const data = await dataOf('pptx/markitdown-test.pptx', { formats: ['markdown', 'images'] });
    assert.equal(
      data.metadata.contentType,
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    );
    const md: string = data.markdown;
    const slides = [...md.matchAll(/<!-- Slide number: (\d+) -->/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      slides,
      [...slides].sort((a, b) => a - b),
    );
    assert.ok(slides.length >= 5);
    assert.match(md, /^## AutoGen: Enabling Next-Gen LLM Applications via Multi-Agent Conversation$/m);
    assert.match(
      md,
      /^\| ColA \| ColB \| ColC \| ColD \| ColE \| ColF \|\n\| - \| - \| - \| - \| - \| - \|\n\| 1 \| 2 \| 3 \| 4 \| 5 \| 6 \|$/m,
    );
    assert.match(md, /This is a nested shape with content in 2 shapes/);
    assert.match(md, /!\[This phrase of the caption is Human-written\.\]\(<Base64-Image-Removed>\)/);
    assert.ok(data.images.some((src: string) => src.startsWith('data:image/')));
  });

  it('ODP: charts as tables, merged cells as an HTML table', async () => {
    const data = await dataOf('odp/docling-odf_presentation_02.odp');
    assert.equal(data.metadata.contentType, 'application/vnd.oasis.opendocument.presentation');
    const md: string = data.markdown;
    assert.match(md, /^## Chart\n\n\| \| Column 1 \| Column 2 \| Column 3 \|/m);
    assert.match(md, /<td colspan="2" rowspan="3">Merged cells row 1-3, col 2-3<\/td>/);
  });

  it('PPT: slide text, bullets and speaker notes under a label', async () => {
    const data = await dataOf('ppt/poi-basic_test_ppt_file.ppt');
    assert.equal(data.metadata.contentType, 'application/vnd.ms-powerpoint');
    assert.equal(
      data.markdown,
      [
        '<!-- Slide number: 1 -->',
        '## This is a test title',
        'This is a test subtitle',
        'This is on page 1',
        '**Notes:**',
        'These are the notes for page 1',
        '<!-- Slide number: 2 -->',
        '## This is the title on page 2',
        '- This is page two\n- It has several blocks of text\n- None of them have formatting',
        '**Notes:**',
        'These are the notes on page two, again lacking formatting',
      ].join('\n\n'),
    );
  });

  it('PPT: grouped shapes and hyperlinks, masters left out', async () => {
    const md: string = (await dataOf('ppt/tika-testPPT_groups.ppt')).markdown;
    for (const box of ['Text box1', 'Text box2', 'Text box3', 'Text box4', 'WordArt1'])
      assert.match(md, new RegExp(box));
    assert.match(md, /\[tika link\]\(http:\/\/tika\.apache\.org\/\)/);
    assert.doesNotMatch(md, /Click to edit/);
  });

  it('PPTM: the deck converts, its macros are neither run nor shown', async () => {
    const data = await dataOf('pptm/tika-testPPT_macros.pptm');
    assert.equal(data.metadata.contentType, 'application/vnd.ms-powerpoint.presentation.macroenabled.12');
    assert.match(data.markdown, /^## The quick/m);
    assert.doesNotMatch(data.markdown, /Sub |End Sub|Attribute VB_/);
  });
});
