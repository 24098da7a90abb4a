import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, useServer } from '../helpers/server.ts';

/**
 * A heavy run (issue 32, layer 4): a 40 MB CSV upload through a real server. The CSV
 * converter's behaviours are tested in-process in test/unit/convert-csv.test.ts.
 */
describe('CSV uploads', () => {
  const server = useServer();

  it('converts a 40 MB CSV', async () => {
    const row = 'id,name,city,amount,date,comment\n';
    const line = (i: number) =>
      `${i},Person ${i},"City, ${i % 97}",${(i * 1.25).toFixed(2)},2024-01-${(i % 28) + 1},"said ""hi"""\n`;
    const parts = [row];
    let size = row.length;
    for (let i = 0; size < 40 * 1024 * 1024; i++) {
      const l = line(i);
      parts.push(l);
      size += l.length;
    }
    const { status, body } = await parse(server(), {
      file: { bytes: parts.join(''), filename: 'big.csv' },
      options: { timeout: 120000 },
    });
    assert.equal(status, 200, JSON.stringify(body));
    // assert.ok, not match: a failure must not print 40 MB of Markdown.
    assert.ok(body.data.markdown.startsWith('| id | name | city | amount | date | comment |\n'));
    assert.ok(
      body.data.markdown.includes(
        '\n| 12345 | Person 12345 | City, 26 | 15431.25 | 2024-01-26 | said "hi" |\n',
      ),
    );
  });
});
