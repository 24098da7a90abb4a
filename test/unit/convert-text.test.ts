import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { corpusDir, corpusFile } from '../helpers/server.ts';

/**
 * Text uploads that are not CSV, through the converter in this process: each kind decided by
 * its name, or by its content when it has none, and rendered as what it is (README, "Text
 * files").
 */
describe('text conversion', () => {
  const dataOf = async (file: ConvertFile, options?: unknown): Promise<Record<string, any>> =>
    convert(file, options);

  it('plain text: paragraphs, its lines kept, markup characters escaped, never a table', async () => {
    // LibreOffice's text export of a Word file: a real .txt, with bullets and numbered lines.
    const file = corpusFile('doc/tika-testWORD_various.doc.expected.txt');
    const data = await dataOf(file, { formats: ['markdown', 'html'] });
    assert.equal(data.metadata.contentType, 'text/plain');
    const md: string = data.markdown;
    assert.doesNotMatch(md, /^\|/m, 'not a table');
    // "Here is a numbered list:" and its items stay on their own lines.
    assert.match(md, /Here is a numbered list:\\?\n\s*1\\?\) Number bullet 1\\?\n\s*2\\?\) Number bullet 2/);
    assert.match(md, /• Bullet 1\\?\n\s*• Bullet 2/);
    assert.match(data.html, /Here is a list:<br>• Bullet 1<br>/);
  });

  it('plain text: wrapped prose runs on, and a line starting with # or - is text, not markup', async () => {
    const text = [
      'The committee met on Tuesday to review the proposal for the new library building, and',
      'after a long discussion agreed to ask the architects for a second design that keeps the',
      'reading room on the ground floor.',
      '',
      '# of attendees: 12',
      '- see the minutes',
      '',
    ].join('\n');
    const md: string = (await dataOf({ bytes: text, filename: 'minutes.txt' })).markdown;
    assert.match(
      md,
      /building, and after a long discussion agreed .* keeps the reading room on the ground floor\./,
    );
    assert.match(md, /^\\# of attendees: 12\\?$/m);
    assert.match(md, /^\\- see the minutes$/m);
    assert.doesNotMatch(md, /^#/m);
  });

  it('Markdown: read as CommonMark with GFM and written back normalised', async () => {
    // A real Markdown file: the corpus's own SOURCES.md (headings, a long GFM table, code spans).
    const file = corpusFile('SOURCES.md');
    const source = fs.readFileSync(path.join(corpusDir, 'SOURCES.md'), 'utf8');
    const rows = source.split('\n').filter((l) => /^\| `/.test(l)).length;
    const data = await dataOf(file, { formats: ['markdown', 'html', 'links'] });
    assert.equal(data.metadata.contentType, 'text/markdown');
    assert.equal(data.metadata.title, 'DEV corpus sources');
    const md: string = data.markdown;
    assert.match(md, /^# DEV corpus sources$/m);
    // The table survives as a table, with a row per source row.
    assert.equal(md.split('\n').filter((l) => /^\| `/.test(l)).length, rows);
    assert.match(data.html, /<table>/);
    assert.match(data.html, /<code>docx\/docling-Transitional\.docx<\/code>/);
  });

  it('Markdown: front matter, task items, footnotes, links made absolute, scripts dropped', async () => {
    const text = [
      '---',
      'title: "Release notes"',
      '---',
      '',
      'Setext heading',
      '==============',
      '',
      '* [x] shipped',
      '* [ ] pending',
      '',
      'See [the guide](docs/guide.md)[^1].',
      '',
      '<div>inline <b>HTML</b><script>alert(1)</script></div>',
      '',
      '[^1]: Written by the docs team.',
      '',
    ].join('\n');
    const data = await dataOf({ bytes: text, filename: 'NOTES.md' }, { formats: ['markdown', 'links'] });
    const md: string = data.markdown;
    assert.equal(data.metadata.title, 'Release notes');
    assert.match(md, /^```yaml\ntitle: "Release notes"\n```$/m);
    assert.match(md, /^# Setext heading$/m);
    assert.match(md, /^- \[x\] shipped$/m);
    assert.match(md, /^- \[ \] pending$/m);
    assert.match(md, /\[the guide\]\(https:\/\/uploads\.quire\.invalid\/docs\/guide\.md\)\[\^1\]/);
    assert.match(md, /^\[\^1\]: Written by the docs team\.$/m);
    assert.match(md, /inline \*\*HTML\*\*/);
    assert.doesNotMatch(md, /alert/);
    assert.deepEqual(data.links, ['https://uploads.quire.invalid/docs/guide.md']);
  });

  it('JSON and XML: one fenced code block each, the source untouched', async () => {
    const file = corpusFile('html/markitdown-test_blog.html.vectors.json');
    const source = fs.readFileSync(
      path.join(corpusDir, 'html/markitdown-test_blog.html.vectors.json'),
      'utf8',
    );
    const json = await dataOf(file);
    assert.equal(json.metadata.contentType, 'application/json');
    assert.equal(json.markdown, `\`\`\`json\n${source.trim()}\n\`\`\``);

    const xml = '<?xml version="1.0"?>\n<feed><entry id="1">Q&amp;A</entry></feed>\n';
    const feed = await dataOf({ bytes: xml, filename: 'feed.xml' });
    assert.equal(feed.metadata.contentType, 'application/xml');
    assert.equal(feed.markdown, `\`\`\`xml\n${xml.trim()}\n\`\`\``);
  });

  it('an unnamed upload is judged by its content: JSON, XML, a table, or plain text', async () => {
    const cases: [string, string, RegExp][] = [
      ['{"id": 7, "tags": ["a"]}', 'application/json', /^```json\n/],
      ['<catalog><book id="b1"/></catalog>', 'application/xml', /^```xml\n/],
      [
        '<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Page</h1></body></html>',
        'text/html; charset=utf-8',
        /^# Page$/m,
      ],
      ['city;population\nOslo;709000\nBergen;291000\n', 'text/csv', /^\| city \| population \|/],
      [
        'Call me Ishmael. Some years ago, never mind how long precisely, I went to sea.\n',
        'text/plain',
        /^Call me Ishmael\./,
      ],
    ];
    for (const [text, contentType, markdown] of cases) {
      // text/plain is what clients send for any text, so it decides nothing.
      const data = await dataOf({ bytes: text, filename: 'upload', contentType: 'text/plain' });
      assert.equal(data.metadata.contentType, contentType, text);
      assert.match(data.markdown, markdown);
    }
  });

  it('binary bytes never become text: a text name on binary bytes is refused', async () => {
    const binary = Uint8Array.from({ length: 2048 }, (_, i) => (i * 73 + 11) % 256);
    for (const filename of ['data.csv', 'notes.txt', 'upload'])
      await assert.rejects(convert({ bytes: binary, filename }), { code: 'UNSUPPORTED_FILE_TYPE' }, filename);
  });
});
