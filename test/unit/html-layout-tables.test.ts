import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { convert } from '../helpers/convert.ts';

const prose = (topic: string) =>
  `<p>This paragraph about ${topic} is running prose, with commas, clauses and full sentences, long enough to read as the body of a page, and it goes on for a while so that nobody takes it for a label.</p>`;

/**
 * Web pages' tables through the HTML converter in the test's process: layout tables unwrapped
 * without gluing words, data tables kept (issue 16).
 */
describe('tables on web pages: layout or data', () => {
  async function markdownOf(html: string, options: Record<string, unknown> = { onlyMainContent: false }) {
    return (await convert({ bytes: html, filename: 'page.html' }, options)).markdown!;
  }
  const lines = (markdown: string) => markdown.split('\n').filter((line) => line.trim() !== '');

  it('a table of tables is layout: every cell’s text is there, apart, never glued to its neighbour’s', async () => {
    // The case: rows `A | B` and `A1 B1 C1 D1` came out as `AB` and `A1B1C1D1`.
    const md = await markdownOf(`<html><body><table>
      <tr><td>A</td><td>B</td></tr>
      <tr><td><table><tr><td>A1</td><td>B1</td></tr></table></td><td><table><tr><td>C1</td><td>D1</td></tr></table></td></tr>
    </table></body></html>`);
    assert.deepEqual(lines(md), ['A B', 'A1 B1', 'C1 D1']);
  });

  it('an old-style page laid out with nested tables reads as its content', async () => {
    const html = `<html><body><table width="100%">
      <tr><td colspan="2"><table><tr><td><b>Harbour Gazette</b></td><td><a href="/login">Log in</a></td></tr></table></td></tr>
      <tr><td width="20%"><table><tr><td><a href="/news">News</a></td></tr><tr><td><a href="/sport">Sport</a></td></tr></table></td>
        <td><h1>Ferry timetable changes</h1>${prose('the ferry')}${prose('the harbour')}
          <table><tr><td>Quay</td><td>Departs</td></tr><tr><td>North</td><td>08:15</td></tr><tr><td>South</td><td>09:40</td></tr></table>
          ${prose('the tides')}</td></tr>
      <tr><td>Contact</td><td>Editor: Ann Lee</td></tr>
    </table></body></html>`;
    const md = await markdownOf(html);
    assert.deepEqual(lines(md).slice(0, 5), [
      '**Harbour Gazette** [Log in](https://uploads.quire.invalid/login)',
      '[News](https://uploads.quire.invalid/news)',
      '[Sport](https://uploads.quire.invalid/sport)',
      '# Ferry timetable changes',
      'This paragraph about the ferry is running prose, with commas, clauses and full sentences, long enough to read as the body of a page, and it goes on for a while so that nobody takes it for a label.',
    ]);
    // The timetable inside the article is data, and stays a table.
    assert.match(md, /^\| Quay \| Departs \|\n\| - \| - \|\n\| North \| 08:15 \|\n\| South \| 09:40 \|$/m);
    assert.match(md, /^Contact Editor: Ann Lee$/m);
    // No outer table survives as a GFM table squeezing the article onto one line.
    assert.doesNotMatch(md, /^\|.*Ferry timetable/m);
  });

  it('a table whose cells hold the article (headings, paragraphs) is layout even without nested tables', async () => {
    const md = await markdownOf(`<html><body><table><tr>
      <td><ul><li><a href="/a">Home</a></li><li><a href="/b">Archive</a></li></ul></td>
      <td><h2>Spring planting</h2>${prose('seeds')}${prose('soil')}</td>
    </tr></table></body></html>`);
    assert.match(md, /^## Spring planting$/m);
    assert.match(md, /^This paragraph about seeds is running prose/m);
    assert.doesNotMatch(md, /^\|/m);
  });

  it('one-row tables (a comment beside its vote arrow) and role="presentation" are layout', async () => {
    const md = await markdownOf(`<html><body>
      <table><tr><td><img src="s.gif" alt=""></td><td>▲</td><td>I think the patch is fine. It fixes the crash we saw last week.</td></tr></table>
      <table role="presentation"><tr><td>Left</td><td>Right</td></tr><tr><td>Down</td><td>Under</td></tr></table>
    </body></html>`);
    assert.match(md, /^!\[\]\(https:\/\/uploads\.quire\.invalid\/s\.gif\) ▲ I think the patch is fine\./m);
    assert.deepEqual(lines(md).slice(1), ['Left Right', 'Down Under']);
  });

  it('a data table with a small table in a cell stays a table, the inner rows inline', async () => {
    const md = await markdownOf(`<html><body><p>Price list.</p><table>
      <thead><tr><th>Product</th><th>Sizes</th><th>Price</th></tr></thead>
      <tbody>
        <tr><td>Shirt</td><td><table><tr><td>S</td><td>10</td></tr><tr><td>M</td><td>12</td></tr></table></td><td>$5</td></tr>
        <tr><td>Hat</td><td>One size</td><td>$3</td></tr>
      </tbody></table></body></html>`);
    assert.deepEqual(lines(md), [
      'Price list.',
      '| Product | Sizes | Price |',
      '| - | - | - |',
      '| Shirt | S 10; M 12 | $5 |',
      '| Hat | One size | $3 |',
    ]);
  });

  it('data tables stay tables: a header over a heading and a list in cells, a small grid without header', async () => {
    const md = await markdownOf(`<html><body>
      <table><tr><th>Option</th><th>Values</th></tr>
        <tr><td><h5>Game speed</h5><p>Set the speed of play.</p></td><td><ul><li>Slow</li><li>Fast</li></ul></td></tr>
        <tr><td><h5>Ball</h5><p>Which ball is used.</p></td><td><ul><li>Default</li><li>Random</li></ul></td></tr></table>
      <table><tr><td>A</td><td>B</td></tr><tr><td>1...</td><td>2...</td></tr></table>
    </body></html>`);
    assert.match(md, /^\| Game speed Set the speed of play\. \| - Slow - Fast \|$/m);
    assert.match(md, /^\| A \| B \|\n\| - \| - \|\n\| 1\.\.\. \| 2\.\.\. \|$/m);
  });

  it('main content takes a layout table’s cells and rows without their table, and glues none of them', async () => {
    // Main content picks the article's cell, the title's row parts and the byline's row out
    // of the table: they used to come out as a stray GFM row and a cell whose paragraphs ran
    // into each other ("label.This paragraph").
    const links = Array.from(
      { length: 30 },
      (_, i) => `<li><a href="/l${i}">Story number ${i}</a></li>`,
    ).join('');
    const md = await markdownOf(
      `<html><body><table>
        <tr><td><h1>Ferry timetable changes</h1></td><td><form><input name="q"></form></td></tr>
        <tr><td>By Ann Lee</td><td>3 March</td></tr>
        <tr><td>${['the ferry', 'the harbour', 'the tides', 'the quay', 'the fares', 'the crew'].map(prose).join('')}</td>
          <td><ul>${links}</ul></td></tr>
        <tr><td><ul>${links}</ul></td><td><ul>${links}</ul></td></tr>
      </table><div class="footer">Harbour Gazette, 1 Quay Street</div></body></html>`,
      {},
    );
    assert.deepEqual(lines(md).slice(0, 4), [
      '# Ferry timetable changes',
      'By Ann Lee 3 March',
      'This paragraph about the ferry is running prose, with commas, clauses and full sentences, long enough to read as the body of a page, and it goes on for a while so that nobody takes it for a label.',
      'This paragraph about the harbour is running prose, with commas, clauses and full sentences, long enough to read as the body of a page, and it goes on for a while so that nobody takes it for a label.',
    ]);
    assert.doesNotMatch(md, /^\|/m);
    assert.doesNotMatch(md, /label\.This/);
  });
});
