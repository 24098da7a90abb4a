import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, useServer } from '../helpers/server.ts';

/**
 * A heavy upload through a real server, in both modes: 12 MB of CSV, far past where uploads and
 * answers leave the IPC channel for the bulk socket (limits.bulkMinBytes), so every stage takes
 * the path the 50 MB the contract allows would (that cap itself: request-limits.test.ts). The CSV converter's behaviours are tested in-process in
 * test/unit/convert-csv.test.ts.
 */
describe('CSV uploads', () => {
  const server = useServer();

  it('converts a 12 MB CSV', async () => {
    const row = 'id,name,city,amount,date,comment\n';
    const line = (i: number) =>
      `${i},Person ${i},"City, ${i % 97}",${(i * 1.25).toFixed(2)},2024-01-${(i % 28) + 1},"said ""hi"""\n`;
    const parts = [row];
    let size = row.length;
    let last = 0;
    for (; size < 12 * 1024 * 1024; last++) {
      const l = line(last);
      parts.push(l);
      size += l.length;
    }
    last--;
    const { status, body } = await parse(server(), {
      file: { bytes: parts.join(''), filename: 'big.csv' },
      options: { timeout: 120000 },
    });
    assert.equal(status, 200, JSON.stringify(body));
    // assert.ok, not match: a failure must not print megabytes of Markdown.
    assert.ok(body.data.markdown.startsWith('| id | name | city | amount | date | comment |\n'));
    assert.ok(
      body.data.markdown.includes(
        '\n| 12345 | Person 12345 | City, 26 | 15431.25 | 2024-01-26 | said "hi" |\n',
      ),
    );
    // Every row, to the last.
    const lastRow = `| ${last} | Person ${last} | City, ${last % 97} | ${(last * 1.25).toFixed(2)} | 2024-01-${(last % 28) + 1} | said "hi" |`;
    assert.ok(body.data.markdown.trimEnd().endsWith(`\n${lastRow}`));
  });
});
