import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it, mock } from 'node:test';
import { limits } from '../../src/limits.ts';
import { SlidingWindowRateLimiter } from '../../src/quota/rate-limit.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { filePartHead, filePartTail, rawParse } from '../helpers/raw-upload.ts';
import { corpusFile, parse, startServer } from '../helpers/server.ts';
import { childrenOf, isRunning, otherTeamKey, waitFor } from '../helpers/sessions.ts';
import { storeRows } from '../helpers/store.ts';

const limiterAlone = firstPassOnly('the limiter alone under a mocked clock, no server');

describe('service lifecycle', () => {
  it('finishes a request in flight on SIGTERM, then exits 0', async () => {
    // Info level: Fastify logs each request as it arrives ("incoming request").
    const server = await startServer({ QUIRE_LOG_LEVEL: 'info' });
    const paragraphs = 2_000;
    const head = `${filePartHead('drain.html')}<html><body>`;
    const rest =
      Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i + 1} of the page.</p>`).join('') +
      `</body></html>${filePartTail}`;
    const { request, answer } = rawParse(server.url, server.key, Buffer.byteLength(head + rest));
    // Only the head of the body goes first: once the server has logged the request, it is in
    // flight and cannot have been answered, since the rest of its file is still to come.
    request.write(head);
    await server.waitForOutput(/"url":"\/v2\/parse".*"msg":"incoming request"/);
    const exited = server.stop('SIGTERM');
    await server.waitForOutput(/shutting down; finishing in-flight requests/);
    request.end(rest);
    const { status, text } = await answer;
    const body = JSON.parse(text);
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    // The whole page, up to its last paragraph, was converted after the signal.
    const md: string = body.data.markdown;
    assert.equal(md.match(/^Paragraph \d+ of the page\.$/gm)?.length, paragraphs);
    assert.ok(md.endsWith(`Paragraph ${paragraphs} of the page.`), md.slice(-200));
    assert.equal(await exited, 0);
  });

  it('records an audit event per parse, without the filename under zero data retention', async () => {
    const server = await startServer();
    try {
      const file = { bytes: '<p>x</p>', filename: 'secret-plan.html' };
      await parse(server, { file, options: { auditMetadata: { username: 'alice' } } });
      await parse(server, { file, options: { auditMetadata: { username: 'bob' }, zeroDataRetention: true } });
      const rows = await storeRows(
        server,
        'SELECT username, filename, format, status, zero_data_retention FROM audit_events ORDER BY seq',
      );
      assert.deepEqual(
        // SQLite keeps the flag as 0 or 1, PostgreSQL as a boolean.
        rows.map((r) => ({ ...r, zero_data_retention: Number(r.zero_data_retention) })),
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
    // Debug level: the server logs each conversion as it asks for its team's slot, and again
    // once it has it.
    const server = await startServer({ QUIRE_TEAM_CONCURRENCY: '1', QUIRE_LOG_LEVEL: 'debug' });
    try {
      // A conversion that holds the team's only slot until its client leaves.
      const leave = new AbortController();
      const holder = parse(server, {
        file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
        options: ocrWithin(120_000),
        signal: leave.signal,
      }).then(
        (answer) => `answered ${answer.status}`,
        (error: Error) => error.name,
      );
      await server.waitForOutput(/"msg":"conversion submitted"/);
      const file = { bytes: '<p>Some text for the queue.</p>', filename: 'q.html' };
      const sent = performance.now();
      const queued = parse(server, { file });
      // The second request found the team at its limit: it is in line. Then the holder's client
      // leaves, which ends its conversion and frees the slot.
      await server.waitForOutput(/"msg":"conversion waits for a team slot"/);
      leave.abort();
      const { status, body } = await queued;
      const span = performance.now() - sent;
      assert.equal(status, 200, JSON.stringify(body));
      assert.match(body.data.markdown, /Some text for the queue\./);
      assert.equal(body.data.metadata.concurrencyLimited, true);
      // Whole milliseconds, and no more than the request took as its client saw it.
      const waited = body.data.metadata.concurrencyQueueDurationMs;
      assert.ok(Number.isInteger(waited) && waited >= 0 && waited <= span, `waited ${waited} ms of ${span}`);
      assert.equal(await holder, 'AbortError');
      // With the slot free, the next request does not wait and says nothing about queueing.
      const next = await parse(server, { file });
      assert.equal(next.status, 200);
      assert.equal(next.body.data.metadata.concurrencyLimited, false);
      assert.equal('concurrencyQueueDurationMs' in next.body.data.metadata, false);
    } finally {
      await server.stop();
    }
  });

  it('answers 429 with Retry-After past the per-minute rate, to that team only', async () => {
    const server = await startServer({ QUIRE_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const other = await otherTeamKey(server, 'other');
      const call = (key: string) =>
        fetch(`${server.url}/v2/openapi.json`, { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < 3; i++) assert.equal((await call(server.key)).status, 200);
      const over = await call(server.key);
      assert.equal(over.status, 429);
      const body = (await over.json()) as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['error']);
      assert.match(String(body.error), /Rate limit exceeded: at most 3 requests per minute/);
      const retryAfter = Number(over.headers.get('retry-after'));
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
        `Retry-After ${retryAfter}`,
      );
      assert.equal((await call(other)).status, 200);
    } finally {
      await server.stop();
    }
  });

  it('the rate window slides: a new minute on the clock brings no fresh budget', limiterAlone, async () => {
    // The limiter and its counters read Date.now() and set timers: both under the test's clock.
    mock.timers.enable({ apis: ['Date', 'setTimeout'], now: Date.UTC(2030, 0, 1, 12, 0, 59, 900) });
    try {
      const limiter = new SlidingWindowRateLimiter(3);
      for (let i = 0; i < 3; i++) assert.equal(await limiter.consume('team'), 0);
      mock.timers.tick(200); // 12:01:00.100, where fixed windows would start again
      // The three leave the window with their 10 s slot, at 12:01:50.
      assert.equal(await limiter.consume('team'), 50);
      mock.timers.tick(49_000);
      assert.equal(await limiter.consume('team'), 1);
      mock.timers.tick(900);
      // A full budget again: the refused requests were not counted.
      for (let i = 0; i < 3; i++) assert.equal(await limiter.consume('team'), 0);
      assert.ok((await limiter.consume('team')) > 0);
    } finally {
      mock.timers.reset();
    }
  });

  it('runs the server and its conversion workers with core files off', async () => {
    const server = await startServer({ QUIRE_WORKERS: '2' });
    try {
      assert.equal((await parse(server, { file: { bytes: '<p>x</p>', filename: 'a.html' } })).status, 200);
      // The API process, and the one running the conversion workers (the same one unless in a
      // cluster, where it is the worker process).
      const serverPids = [...new Set([server.process.pid!, server.conversionProcess.pid!])];
      const children = childrenOf(server.conversionProcess.pid!);
      const workers = children.filter((pid) =>
        fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('max-old-space-size'),
      );
      // Two workers, and the idle spares the pool keeps (limits.spareWorkers).
      assert.equal(
        workers.length,
        2 + limits.spareWorkers,
        `conversion workers among ${children.join(', ')}`,
      );
      for (const pid of [...serverPids, ...workers]) {
        // A zero-retention upload must not land on disk in a core file when a worker aborts.
        const processLimits = fs.readFileSync(`/proc/${pid}/limits`, 'latin1');
        assert.match(processLimits, /^Max core file size\s+0\s+0\s+bytes/m, `process ${pid}`);
      }
    } finally {
      await server.stop();
    }
  });

  it('stops its conversion workers, busy ones too, when the server is killed', async () => {
    const server = await startServer({ QUIRE_WORKERS: '1' });
    // A 352-page book OCR'd page by page keeps its worker busy far longer than this test.
    const book = corpusFile('pdf/big/pjs-freeculture-352p.pdf');
    const form = new FormData();
    form.append('options', JSON.stringify({ parsers: [{ type: 'pdf', mode: 'ocr' }], timeout: 300_000 }));
    form.append('file', new Blob([book.bytes as Uint8Array<ArrayBuffer>]), book.filename);
    void fetch(`${server.url}/v2/parse`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${server.key}` },
    }).catch(() => {});
    // The worker busy with it is the one that has started tesseract on the first page (the
    // pool also keeps idle spares).
    const worker = await waitFor(
      'the worker to start OCR',
      async () => childrenOf(server.conversionProcess.pid!).find((pid) => childrenOf(pid).length > 0),
      60_000,
    );
    await server.stop('SIGKILL');
    await waitFor('the orphaned worker to exit', async () => (isRunning(worker) ? undefined : true), 60_000);
  });
});
