import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, useServer } from './helpers/server.ts';

/** Small uploads must not expand into huge answers (issue 14: output amplification). */
describe('output bounds', () => {
  const server = useServer();
  const page = (rows: string) => `<html><body><table>${rows}</table></body></html>`;

  it('a few kilobytes of colspan=1000 do not pad every row to a thousand columns', async () => {
    // One wide row over 5,000 one-cell rows: padded to the wide row, 95 KB made 10 MB.
    const html = page(
      `<tr>${'<td>a</td>'.repeat(5)}<td colspan=1000>w</td></tr>${'<tr><td>b</td></tr>'.repeat(5000)}`,
    );
    const { status, body } = await parse(server(), { file: { bytes: html, filename: 'wide.html' } });
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    const md: string = body.data.markdown;
    assert.ok(md.length < 4 * html.length, `${md.length} bytes of Markdown from ${html.length} of HTML`);
    // Every cell's text is still there, once.
    assert.equal(md.match(/\bb\b/g)?.length, 5000);
    assert.equal(md.match(/\bw\b/g)?.length, 1);
  });

  it('one very wide row over many short ones becomes flow, not a grid of empty cells', async () => {
    const html = page(`<tr>${'<td>a</td>'.repeat(10_000)}</tr>${'<tr><td>b</td></tr>'.repeat(10_000)}`);
    const { status, body } = await parse(server(), { file: { bytes: html, filename: 'grid.html' } });
    assert.equal(status, 200);
    const md: string = body.data.markdown;
    assert.ok(md.length < html.length, `${md.length} bytes of Markdown from ${html.length} of HTML`);
    assert.equal(md.match(/\ba\b/g)?.length, 10_000);
    assert.equal(md.match(/\bb\b/g)?.length, 10_000);
  });

  it('a real merged header still spans its columns', async () => {
    const html = page(
      '<tr><th colspan=3>Population</th></tr><tr><th>City</th><th>2010</th><th>2020</th></tr><tr><td>Oslo</td><td>586</td><td>697</td></tr>',
    );
    const { body } = await parse(server(), { file: { bytes: html, filename: 'merged.html' } });
    assert.match(body.data.markdown, /^\| Population \| Population \| Population \|$/m);
    assert.match(body.data.markdown, /^\| Oslo \| 586 \| 697 \|$/m);
  });
});
