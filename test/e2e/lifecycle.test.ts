import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { filePartHead, filePartTail, rawParse } from '../helpers/raw-upload.ts';
import { parse, repoRoot, startServer, storeEnv, useServer } from '../helpers/server.ts';
import { childrenOf, isRunning, otherTeamKey, waitFor } from '../helpers/sessions.ts';
import { storeRows } from '../helpers/store.ts';

/** The `time` (epoch ms) of the server's log line for request `reqId` with message `msg`. */
function loggedAt(output: string, reqId: string, msg: string): number {
  const line = output
    .split('\n')
    .find((l) => l.includes(`"reqId":"${reqId}"`) && l.includes(`"msg":"${msg}"`));
  assert.ok(line, `no "${msg}" line for request ${reqId}`);
  return JSON.parse(line).time;
}

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

  it('exits 0 on SIGTERM while a client holds a connection it has sent nothing on', async () => {
    // Browsers open connections ahead of need, and an HTTP client keeps the one an aborted
    // request never used: there is no request on them to finish. A grace long enough that a
    // shutdown waiting for them shows as exit 1, not as a slow test.
    const server = await startServer({ QUIRE_SHUTDOWN_GRACE_MS: '20000' });
    const { hostname, port } = new URL(server.url);
    const silent = net.connect(Number(port), hostname);
    await once(silent, 'connect');
    const closed = once(silent, 'close');
    // Answered on another connection after the silent one was made: the server has taken it.
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    assert.equal(await server.stop('SIGTERM'), 0);
    await closed;
  });

  it('stops its conversion workers, busy ones too, when the server is killed', async () => {
    const server = await startServer({ QUIRE_WORKERS: '1' });
    // A thousand pages read by OCR one after another keep the worker busy far longer than this test.
    void parse(server, {
      file: { bytes: pagesToRecognise(1000), filename: 'long.pdf' },
      options: ocrWithin(300_000),
    }).catch(() => {});
    // The worker busy with it is the one that has started tesseract on the first page (the
    // pool also keeps idle spares).
    const worker = await waitFor('the worker to start OCR', async () =>
      childrenOf(server.conversionProcess.pid!).find((pid) => childrenOf(pid).length > 0),
    );
    await server.stop('SIGKILL');
    await waitFor('the orphaned worker to exit', async () => (isRunning(worker) ? undefined : true));
  });
});

/** What a running server does with its requests and processes: one server for all of them. */
describe('service lifecycle: a running server', () => {
  // Debug level: the server logs each conversion as it asks for its team's slot, waits for one,
  // and is submitted. One parse at a time for the default team.
  const server = useServer({
    QUIRE_WORKERS: '2',
    QUIRE_SPARE_WORKERS: '2',
    QUIRE_TEAM_CONCURRENCY: '1',
    QUIRE_LOG_LEVEL: 'debug',
  });

  // First, while the pool holds the processes it started with.
  it('runs the server and its conversion workers with core files off', async () => {
    assert.equal((await parse(server(), { file: { bytes: '<p>x</p>', filename: 'a.html' } })).status, 200);
    // The API process, and the one running the conversion workers (the same one unless in a
    // cluster, where it is the worker process).
    const serverPids = [...new Set([server().process.pid!, server().conversionProcess.pid!])];
    const children = childrenOf(server().conversionProcess.pid!);
    const workers = children.filter((pid) =>
      fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('max-old-space-size'),
    );
    // Two workers, and the two idle spares the pool keeps (README: Sharing the workers).
    assert.equal(workers.length, 2 + 2, `conversion workers among ${children.join(', ')}`);
    for (const pid of [...serverPids, ...workers]) {
      // A zero-retention upload must not land on disk in a core file when a worker aborts.
      const processLimits = fs.readFileSync(`/proc/${pid}/limits`, 'latin1');
      assert.match(processLimits, /^Max core file size\s+0\s+0\s+bytes/m, `process ${pid}`);
    }
  });

  it('records an audit event per parse, without the filename under zero data retention', async () => {
    const file = { bytes: '<p>x</p>', filename: 'secret-plan.html' };
    await parse(server(), { file, options: { auditMetadata: { username: 'alice' } } });
    await parse(server(), { file, options: { auditMetadata: { username: 'bob' }, zeroDataRetention: true } });
    const rows = await storeRows(
      server(),
      "SELECT username, filename, format, status, zero_data_retention FROM audit_events WHERE username IN ('alice', 'bob') ORDER BY seq",
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
  });

  it('queues a team over its concurrency and says so in metadata', async () => {
    // A conversion that holds the team's only slot until its client leaves.
    const leave = new AbortController();
    const holding = server().waitForOutput(/"msg":"conversion submitted"/, server().output().length);
    const holder = parse(server(), {
      file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
      options: ocrWithin(120_000),
      signal: leave.signal,
    }).then(
      (answer) => `answered ${answer.status}`,
      (error: Error) => error.name,
    );
    await holding;
    const file = { bytes: '<p>Some text for the queue.</p>', filename: 'q.html' };
    const inLine = server().waitForOutput(
      /"reqId":"([^"]+)".*"msg":"conversion waits for a team slot"/,
      server().output().length,
    );
    const queued = parse(server(), { file });
    // The second request found the team at its limit: it is in line. Then the holder's client
    // leaves, which ends its conversion and frees the slot.
    const [, reqId] = await inLine;
    leave.abort();
    const { status, body } = await queued;
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /Some text for the queue\./);
    assert.equal(body.data.metadata.concurrencyLimited, true);
    // Whole milliseconds, within what the request's own log lines bracket: from asking for the
    // slot to being submitted with it (their times are whole ms too, hence the 1).
    const waited = body.data.metadata.concurrencyQueueDurationMs;
    const output = server().output();
    const asked = loggedAt(output, reqId!, 'conversion asks for a team slot');
    const submitted = loggedAt(output, reqId!, 'conversion submitted');
    assert.ok(
      Number.isInteger(waited) && waited >= 0 && waited <= submitted - asked + 1,
      `waited ${waited} ms, logged ${submitted - asked} ms apart`,
    );
    assert.equal(await holder, 'AbortError');
    // With the slot free, the next request does not wait and says nothing about queueing.
    const next = await parse(server(), { file });
    assert.equal(next.status, 200);
    assert.equal(next.body.data.metadata.concurrencyLimited, false);
    assert.equal('concurrencyQueueDurationMs' in next.body.data.metadata, false);
  });

  it('answers 429 with Retry-After past the per-minute rate, to that team only', async () => {
    // A team of its own with a rate of 3, set as an operator would.
    await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'src/cli/quire.ts'), 'teams', 'set', 'limited', '--rate', '3'],
      { env: { ...process.env, ...storeEnv(server()) } },
    );
    const limited = await otherTeamKey(server(), 'limited');
    const call = (key: string) =>
      server().fetch('/v2/openapi.json', { headers: { authorization: `Bearer ${key}` } });
    for (let i = 0; i < 3; i++) assert.equal((await call(limited)).status, 200);
    const over = await call(limited);
    assert.equal(over.status, 429);
    const body = (await over.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['error']);
    assert.match(String(body.error), /Rate limit exceeded: at most 3 requests per minute/);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    // The default team has no rate of its own, and the server's is off.
    assert.equal((await call(server().key)).status, 200);
  });
});
