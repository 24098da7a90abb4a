import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type ConvertFile, convert } from '../helpers/convert.ts';
import { corpusDir, corpusFile } from '../helpers/server.ts';

/** CSV uploads through the converter in this process (the 40 MB one: e2e/parse-csv-large). */
describe('CSV conversion', () => {
  const dataOf = async (file: ConvertFile, options?: unknown): Promise<Record<string, any>> =>
    convert(file, options);

  for (const name of [
    'docling-csv-comma-in-cell',
    'docling-csv-pipe',
    'docling-csv-tab',
    'docling-csv-single-column',
  ]) {
    it(`${name}: a header row and every cell, as the reference has them`, async () => {
      const data = await dataOf(corpusFile(`csv/${name}.csv`));
      const expected = fs.readFileSync(path.join(corpusDir, `csv/${name}.csv.expected.md`), 'utf8');
      const cells = (md: string) =>
        md
          .split('\n')
          .filter((l) => l.startsWith('|') && !/^\|[\s|:-]+\|$/.test(l))
          .map((l) =>
            l
              .split(/(?<!\\)\|/)
              .map((c) => c.trim())
              .filter(Boolean),
          );
      assert.deepEqual(cells(data.markdown), cells(expected.replaceAll('&#124;', '\\|')));
      assert.equal(data.metadata.contentType, 'text/csv');
    });
  }

  it('pads ragged rows and says so', async () => {
    const data = await dataOf(corpusFile('csv/docling-csv-too-few-columns.csv'));
    assert.match(data.markdown, /^\| a +\| b +\| c +\| +\|$/m);
    assert.match(data.warning, /different number of fields/);
  });

  it('detects Shift-JIS', async () => {
    const data = await dataOf(corpusFile('csv/markitdown-test_mskanji.csv'));
    for (const line of ['| 名前 | 年齢 | 住所 |', '| 佐藤太郎 | 30 | 東京 |', '| 髙橋淳 | 35 | 名古屋 |'])
      assert.ok(data.markdown.includes(line), line);
    assert.equal(data.metadata.contentType, 'text/csv; charset=shift_jis');
  });

  it('decodes UTF-16 and Windows-1252, sniffs semicolons, escapes pipes and newlines', async () => {
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('Ville;Prix\nZürich;"1,5"\n', 'utf16le'),
    ]);
    assert.match((await dataOf({ bytes: utf16, filename: 'u.csv' })).markdown, /\| Zürich \| 1,5 \|/);
    const cp1252 = Buffer.from('name,note\nCaf\xe9,\x93quoted\x94\n', 'latin1');
    assert.match((await dataOf({ bytes: cp1252, filename: 'w.csv' })).markdown, /\| Café \| “quoted” \|/);
    const tricky = 'a,b\n"x|y","line1\nline2"\n';
    assert.match(
      (await dataOf({ bytes: tricky, filename: 't.csv' })).markdown,
      /\| x\\\|y \| line1<br>line2 \|/,
    );
  });

  it('renders html as a real table, its cells escaped', async () => {
    const data = await dataOf(
      { bytes: 'h1,h2\n<b>,&\n"say ""hi""",a > b\n', filename: 'h.csv' },
      { formats: ['html'] },
    );
    const html: string = data.html;
    assert.ok(html.includes('<thead><tr><th>h1</th><th>h2</th></tr></thead>'), html);
    // `<` and `&` as entities, so that the cells stay text; `>` and `"` need none in text, and
    // either form reads the same.
    assert.match(html, /<tr><td>&lt;b(&gt;|>)<\/td><td>&amp;<\/td><\/tr>/);
    assert.match(html, /<tr><td>say (&quot;|")hi(&quot;|")<\/td><td>a (&gt;|>) b<\/td><\/tr>/);
    assert.doesNotMatch(html, /<b>|&amp;(amp|lt|gt|quot);/);
  });
});
