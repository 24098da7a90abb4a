import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, it } from 'node:test';
import { parse, startServer } from './helpers/server.ts';

describe('service lifecycle', () => {
  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const server = await startServer();
    const html = `<html><body>${'<p>Paragraph of text to convert.</p>'.repeat(60_000)}</body></html>`;
    const inflight = parse(server, { file: { bytes: html, filename: 'slow.html' } });
    await new Promise((r) => setTimeout(r, 300));
    const exited = server.stop('SIGTERM');
    const { status, body } = await inflight;
    assert.equal(status, 200);
    assert.match(body.data.markdown, /Paragraph of text to convert\./);
    assert.equal(await exited, 0);
  });

  it('records an audit event per parse, without the filename under zero data retention', async () => {
    const server = await startServer();
    try {
      const file = { bytes: '<p>x</p>', filename: 'secret-plan.html' };
      await parse(server, { file, options: { auditMetadata: { username: 'alice' } } });
      await parse(server, { file, options: { auditMetadata: { username: 'bob' }, zeroDataRetention: true } });
      const db = new DatabaseSync(path.join(server.dataDir, 'quire.db'), { readOnly: true });
      const rows = db
        .prepare(
          'SELECT username, filename, format, status, zero_data_retention FROM audit_events ORDER BY seq',
        )
        .all();
      db.close();
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [
          {
            username: 'alice',
            filename: 'secret-plan.html',
            format: 'html',
            status: 200,
            zero_data_retention: 0,
          },
          { username: 'bob', filename: null, format: 'html', status: 200, zero_data_retention: 1 },
        ],
      );
    } finally {
      await server.stop();
    }
  });

  it('queues a team over its concurrency and says so in metadata', async () => {
    const server = await startServer({ QUIRE_TEAM_CONCURRENCY: '1' });
    try {
      const html = `<html><body>${'<p>Some text for the queue.</p>'.repeat(30_000)}</body></html>`;
      const results = await Promise.all(
        [1, 2, 3].map(() => parse(server, { file: { bytes: html, filename: 'q.html' } })),
      );
      for (const r of results) assert.equal(r.status, 200);
      const limited = results.filter((r) => r.body.data.metadata.concurrencyLimited);
      assert.ok(limited.length >= 1, 'at least one request waited');
      for (const r of limited) assert.ok(r.body.data.metadata.concurrencyQueueDurationMs > 0);
      for (const r of results.filter((x) => !x.body.data.metadata.concurrencyLimited)) {
        assert.equal('concurrencyQueueDurationMs' in r.body.data.metadata, false);
      }
    } finally {
      await server.stop();
    }
  });

  it('answers 429 with Retry-After past the per-minute rate', async () => {
    const server = await startServer({ QUIRE_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const file = { bytes: '<p>x</p>', filename: 'a.html' };
      assert.equal((await parse(server, { file })).status, 200);
      assert.equal((await parse(server, { file })).status, 200);
      const third = await parse(server, { file });
      assert.equal(third.status, 429);
      assert.deepEqual(Object.keys(third.body), ['error']);
      assert.match(third.body.error, /Rate limit exceeded/);
      assert.ok(Number(third.headers.get('retry-after')) > 0);
    } finally {
      await server.stop();
    }
  });
});
