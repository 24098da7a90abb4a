import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/errors.ts';
import { limits } from '../../src/limits.ts';
import { RedisTeamConcurrency } from '../../src/quota/redis-team-concurrency.ts';
import { InProcessTeamConcurrency, type TeamConcurrency } from '../../src/quota/team-concurrency.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { createDatabase } from '../helpers/postgres.ts';
import { filePartHead, rawParse } from '../helpers/raw-upload.ts';
import {
  corpusFile,
  parse,
  type RunningCluster,
  type RunningServer,
  redisUrl,
  repoRoot,
  startCluster,
  startServer,
  storeEnv,
  useServer,
} from '../helpers/server.ts';

/**
 * Per-team settings, credits and the audit export (issue 18), over HTTP against real servers,
 * changed with the `quire` CLI as an operator would. Each case uses a team of its own that
 * makes no request before its settings are written, so the server's settings cache (a few
 * seconds) never holds an older value and no test waits for it.
 */

const run = promisify(execFile);

/** The `quire` CLI on the store of `env` (QUIRE_DATA_DIR or QUIRE_DATABASE_URL). */
function cliOn(env: Record<string, string>) {
  return async (...args: string[]): Promise<string> =>
    (
      await run(process.execPath, [path.join(repoRoot, 'src/cli/quire.ts'), ...args], {
        env: { ...process.env, ...env },
      })
    ).stdout;
}

const cliFor = (server: RunningServer) => cliOn(storeEnv(server));

const html = (text: string) => ({
  bytes: `<html><body><p>${text}</p></body></html>`,
  filename: `${text}.html`,
});

/** The balance `teams show` prints. */
async function balance(cli: ReturnType<typeof cliOn>, team: string): Promise<string> {
  return /^credits (\S+)$/m.exec(await cli('teams', 'show', team))![1]!;
}

/** Audit events of `team` as `audit export` prints them, one JSON object a line. */
async function exported(
  cli: ReturnType<typeof cliOn>,
  team: string,
  since = '2000-01-01',
): Promise<Record<string, unknown>[]> {
  const out = await cli('audit', 'export', '--since', since, '--team', team);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * 20 parses at once against a balance of 5, each of a document that costs 1: exactly 5 answer,
 * the rest get the contract's 402, and the balance ends at 0, never below.
 */
async function creditRace(server: RunningServer, cli: ReturnType<typeof cliOn>, team: string): Promise<void> {
  const key = (await cli('keys', 'create', '--team', team)).trim();
  await cli('teams', 'credit', team, '--set', '5');
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => parse(server, { file: html(`race ${i}`), key })),
  );
  const statuses = answers.map((a) => a.status);
  assert.equal(statuses.filter((s) => s === 200).length, 5, statuses.join(' '));
  assert.equal(statuses.filter((s) => s === 402).length, 15, statuses.join(' '));
  for (const a of answers.filter((x) => x.status === 402)) assert.deepEqual(Object.keys(a.body), ['error']);
  for (const a of answers.filter((x) => x.status === 200)) assert.equal(a.body.data.metadata.creditsUsed, 1);
  assert.equal(await balance(cli, team), '0');
}

/** Settings written with `teams set` read back as written and hold the team's requests to them. */
async function settingsRoundTrip(
  server: RunningServer,
  cli: ReturnType<typeof cliOn>,
  team: string,
): Promise<void> {
  const key = (await cli('keys', 'create', '--team', team)).trim();
  assert.match(
    await cli(
      'teams',
      'set',
      team,
      '--concurrency',
      '3',
      '--queue-depth',
      '0',
      '--rate',
      '2',
      '--key-rate',
      '5',
      '--audit',
      'off',
      '--zdr',
      'forbidden',
    ),
    new RegExp(
      `^${team} {2}concurrency=3 {2}queue-depth=0 {2}rate=2/min {2}key-rate=5/min {2}audit=off {2}zdr=forbidden {2}credits=unlimited$`,
      'm',
    ),
  );
  assert.equal(
    await cli('teams', 'show', team),
    `team ${team}\nconcurrency 3\nqueue-depth 0\nrate 2/min\nkey-rate 5/min\naudit off\nzdr forbidden\ncredits unlimited\n`,
  );
  assert.match(await cli('teams', 'list'), new RegExp(`^${team} .*queue-depth=0 .*zdr=forbidden`, 'm'));

  const forbidden = await parse(server, { file: html('zdr'), options: { zeroDataRetention: true }, key });
  assert.equal(forbidden.status, 403);
  assert.deepEqual(forbidden.body, {
    success: false,
    error:
      'Zero Data Retention (ZDR) is not enabled for your team. Contact support@firecrawl.com to enable this feature.',
  });
  assert.equal((await parse(server, { file: html('plain'), key })).status, 200);
  // The third request in the minute: over the team's 2.
  const over = await parse(server, { file: html('third'), key });
  assert.equal(over.status, 429);
  assert.deepEqual(Object.keys(over.body), ['error']);
  assert.match(over.body.error, /at most 2 requests per minute, and 5 per key/);
  // Audit off: none of the three wrote an event.
  assert.deepEqual(await exported(cli, team), []);
}

/** The 429 a request gets when its team already has its queue depth of requests waiting. */
const queueFull = (concurrency: number, queueDepth: number) => ({
  error: `Concurrency limit exceeded: your team's queue is full (it runs ${concurrency} at once and ${queueDepth} may wait). Please retry after ${limits.teamQueueFullRetryS}s.`,
});

/** A key of a new team `team` set to concurrency 1 and queue depth 1. */
async function oneRunningOneWaiting(cli: ReturnType<typeof cliOn>, team: string): Promise<string> {
  const key = (await cli('keys', 'create', '--team', team)).trim();
  assert.match(
    await cli('teams', 'set', team, '--concurrency', '1', '--queue-depth', '1'),
    / {2}concurrency=1 {2}queue-depth=1 {2}/,
  );
  return key;
}

/**
 * With `key`'s team at concurrency 1 and queue depth 1, one parse holding the slot (an OCR run
 * that lasts until its client leaves) and one in line, a third is refused with the contract's
 * 429 and Retry-After; once both are done, the next runs without waiting. The holder and the
 * third go to `first`, the one in line and the last to `second` (in a cluster, another API
 * process).
 */
async function queueDepthOfOne(
  key: string,
  team: string,
  first: RunningServer,
  second: RunningServer,
): Promise<void> {
  const leave = new AbortController();
  const holder = parse(first, {
    file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
    options: ocrWithin(120_000),
    key,
    signal: leave.signal,
  }).catch((error: Error) => error.name);
  await first.waitForOutput(new RegExp(`"team":"${team}".*"msg":"conversion submitted"`));
  const queued = parse(second, { file: html('queued'), key });
  await second.waitForOutput(new RegExp(`"team":"${team}".*"msg":"conversion waits for a team slot"`));

  const refused = await parse(first, { file: html('refused'), key });
  assert.equal(refused.status, 429);
  assert.deepEqual(refused.body, queueFull(1, 1));
  assert.equal(refused.headers.get('retry-after'), String(limits.teamQueueFullRetryS));

  leave.abort();
  assert.equal(await holder, 'AbortError');
  const inLine = await queued;
  assert.equal(inLine.status, 200, JSON.stringify(inLine.body));
  assert.match(inLine.body.data.markdown, /queued/);
  assert.equal(inLine.body.data.metadata.concurrencyLimited, true);
  // Slot and place in line both given back: the next neither waits nor is refused.
  const next = await parse(second, { file: html('next'), key });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.match(next.body.data.markdown, /next/);
  assert.equal(next.body.data.metadata.concurrencyLimited, false);
}

describe("teams: settings, credits and audit export (the server's store)", () => {
  const server = useServer({ QUIRE_WORKERS: '2', QUIRE_LOG_LEVEL: 'debug' });

  it('settings set with the CLI read back, and hold the team to them', async () => {
    await settingsRoundTrip(server(), cliFor(server()), 'roundtrip');
  });

  it('a team concurrency of 1 makes its second parse wait, whatever the server default is', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'narrow')).trim();
    await cli('teams', 'set', 'narrow', '--concurrency', '1');
    // A conversion that holds the team's only slot until its client leaves.
    const leave = new AbortController();
    const holder = parse(s, {
      file: { bytes: pagesToRecognise(1000), filename: 'holder.pdf' },
      options: ocrWithin(120_000),
      key,
      signal: leave.signal,
    }).catch((error: Error) => error.name);
    await s.waitForOutput(/"team":"narrow".*"msg":"conversion submitted"/);
    const queued = parse(s, { file: html('queued'), key });
    await s.waitForOutput(/"team":"narrow".*"msg":"conversion waits for a team slot"/);
    leave.abort();
    const { status, body } = await queued;
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.metadata.concurrencyLimited, true);
    assert.equal(await holder, 'AbortError');
  });

  it('a team queue depth of 1: with one parse running and one waiting, a third gets 429 with Retry-After', async () => {
    const key = await oneRunningOneWaiting(cliFor(server()), 'shallow');
    await queueDepthOfOne(key, 'shallow', server(), server());
  });

  it('limits each key of a team to its key rate, and answers 429 with Retry-After', async () => {
    const s = server();
    const cli = cliFor(s);
    const first = (await cli('keys', 'create', '--team', 'keyed')).trim();
    const second = (await cli('keys', 'create', '--team', 'keyed')).trim();
    await cli('teams', 'set', 'keyed', '--key-rate', '1');
    const call = (key: string) =>
      fetch(`${s.url}/v2/openapi.json`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await call(first)).status, 200);
    const over = await call(first);
    assert.equal(over.status, 429);
    assert.match(((await over.json()) as { error: string }).error, /at most 1 requests per minute per key/);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    // The team has no limit of its own, and its other key has its own budget.
    assert.equal((await call(second)).status, 200);
  });

  it('zero data retention forced: every request is treated as asking for it', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'forced')).trim();
    await cli('teams', 'set', 'forced', '--zdr', 'forced');
    const answer = await parse(s, {
      file: html('secret-name'),
      key,
      options: { auditMetadata: { username: 'ann' } },
    });
    assert.equal(answer.status, 200);
    const [event] = await exported(cli, 'forced');
    assert.equal(event!.zeroDataRetention, true);
    assert.equal(event!.filename, null, 'the file name stays out of the audit log');
    assert.equal(event!.username, 'ann');
  });

  it('a team without a balance is unlimited, and its answers still say what they cost', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'free')).trim();
    for (let i = 0; i < 3; i++) {
      const answer = await parse(s, { file: html(`free ${i}`), key });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data.metadata.creditsUsed, 1);
    }
    assert.equal(await balance(cli, 'free'), 'unlimited');
  });

  it('an empty balance answers 402 before the upload is read', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'broke')).trim();
    await cli('teams', 'credit', 'broke', '--set', '0');
    const { request, answer } = rawParse(s.url, key, 10_000_000);
    // Only the head of a 10 MB body is ever sent: an answer can only come from a server that
    // did not wait for the rest.
    request.write(`${filePartHead('a.html')}<p>`);
    const { status, text: body } = await answer;
    request.destroy();
    assert.equal(status, 402);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(parsed), ['error']);
    assert.match(String(parsed.error), /payment is required/i);
    assert.equal(await balance(cli, 'broke'), '0');
  });

  it('a PDF costs 1 plus its pages, OCR or not; failures cost nothing; the last credit still buys an answer', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'payer')).trim();
    assert.match(await cli('teams', 'credit', 'payer', '--set', '20'), /credits=20$/m);

    const text = await parse(s, { file: { bytes: pagesToRecognise(3), filename: 'three.pdf' }, key });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    assert.equal(text.body.data.metadata.numPages, 3);
    assert.equal(text.body.data.metadata.creditsUsed, 4);
    assert.equal(await balance(cli, 'payer'), '16');

    const ocr = await parse(s, {
      file: { bytes: pagesToRecognise(2), filename: 'two.pdf' },
      options: ocrWithin(120_000),
      key,
    });
    assert.equal(ocr.status, 200, JSON.stringify(ocr.body));
    assert.equal(ocr.body.data.metadata.creditsUsed, 3);
    assert.equal(await balance(cli, 'payer'), '13');

    // Refused before conversion (no supported format) and by it (encrypted), invalid options,
    // out of time: all free.
    const junk = Uint8Array.from({ length: 512 }, (_, i) => (i * 131 + 7) % 256);
    const unsupported = await parse(s, { file: { bytes: junk, filename: 'blob' }, key });
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.code, 'UNSUPPORTED_FILE_TYPE');
    const encrypted = await parse(s, { file: corpusFile('pdf/broken/tab-encrypted.pdf'), key });
    assert.equal(encrypted.status, 400);
    assert.equal(encrypted.body.code, 'ENCRYPTED_DOCUMENT');
    const invalid = await parse(s, { file: html('x'), options: { timeout: -1 }, key });
    assert.equal(invalid.status, 400);
    const timedOut = await parse(s, {
      file: { bytes: pagesToRecognise(1000), filename: 'long.pdf' },
      options: ocrWithin(1000),
      key,
    });
    assert.equal(timedOut.status, 408);
    assert.equal(await balance(cli, 'payer'), '13');

    // With one credit left a 3-page PDF (cost 4) is answered and empties the balance; `--add` tops it up.
    assert.match(await cli('teams', 'credit', 'payer', '--set', '1'), /credits=1$/m);
    const last = await parse(s, { file: { bytes: pagesToRecognise(3), filename: 'last.pdf' }, key });
    assert.equal(last.status, 200);
    assert.equal(last.body.data.metadata.creditsUsed, 4);
    assert.equal(await balance(cli, 'payer'), '0');
    assert.equal((await parse(s, { file: html('none left'), key })).status, 402);
    assert.match(await cli('teams', 'credit', 'payer', '--add', '2'), /credits=2$/m);
    assert.equal((await parse(s, { file: html('topped up'), key })).status, 200);
    assert.equal(await balance(cli, 'payer'), '1');
  });

  it('20 parallel parses against a balance of 5: exactly 5 answer, and the balance never goes below 0', async () => {
    await creditRace(server(), cliFor(server()), 'racer');
  });

  it('exports audit events as JSON lines, in order, by time and team', async () => {
    const s = server();
    const cli = cliFor(s);
    const key = (await cli('keys', 'create', '--team', 'audited')).trim();
    const before = new Date().toISOString();
    for (const name of ['one', 'two', 'three'])
      assert.equal((await parse(s, { file: html(name), key })).status, 200);
    const events = await exported(cli, 'audited', before);
    assert.deepEqual(
      events.map((e) => [e.team, e.action, e.status, e.filename, e.format, e.zeroDataRetention]),
      ['one', 'two', 'three'].map((n) => ['audited', 'parse', 200, `${n}.html`, 'html', false]),
    );
    assert.deepEqual(Object.keys(events[0]!).sort(), [
      'action',
      'at',
      'bytes',
      'durationMs',
      'filename',
      'format',
      'keyId',
      'requestId',
      'status',
      'team',
      'username',
      'zeroDataRetention',
    ]);
    // Nothing from after now; other teams' events only without --team.
    assert.equal(await cli('audit', 'export', '--since', '2999-01-01'), '');
    const all = await cli('audit', 'export', '--since', before);
    assert.ok(all.split('\n').filter(Boolean).length >= 3);
    await assert.rejects(cli('audit', 'export', '--since', 'yesterday-ish'), /must be an ISO date/);
  });
});

const postgresAlready = firstPassOnly(
  "a server on PostgreSQL: in the cluster pass, the block above runs on the cluster's PostgreSQL already",
);

describe('teams on the PostgreSQL store (QUIRE_DATABASE_URL)', postgresAlready, () => {
  /** A server on a new empty database of the machine's PostgreSQL; both gone when the test ends. */
  async function onPostgres(t: TestContext) {
    const { url, drop } = await createDatabase();
    let server: RunningServer | undefined;
    t.after(async () => {
      await server?.stop();
      await drop();
    });
    server = await startServer({ QUIRE_WORKERS: '2', QUIRE_DATABASE_URL: url });
    return { server, cli: cliOn({ QUIRE_DATABASE_URL: url, QUIRE_DATA_DIR: server.dataDir }) };
  }

  it('settings set with the CLI read back, and hold the team to them', async (t) => {
    const { server, cli } = await onPostgres(t);
    await settingsRoundTrip(server, cli, 'roundtrip');
  });

  it('20 parallel parses against a balance of 5: exactly 5 answer, and the balance never goes below 0', async (t) => {
    const { server, cli } = await onPostgres(t);
    await creditRace(server, cli, 'racer');
  });
});

describe(
  'team queue depth in cluster mode (Redis)',
  firstPassOnly('starts the cluster it tests itself'),
  () => {
    it('counts the requests waiting on every api process: one waiting on the second refuses a third on the first', async (t) => {
      const cluster: RunningCluster = await startCluster({ QUIRE_LOG_LEVEL: 'debug', QUIRE_WORKERS: '1' });
      t.after(() => cluster.stop());
      const cli = cliOn({ QUIRE_DATABASE_URL: cluster.databaseUrl, QUIRE_DATA_DIR: cluster.api.dataDir });
      const [second, key] = await Promise.all([cluster.addApi(), oneRunningOneWaiting(cli, 'shallow')]);
      await queueDepthOfOne(key, 'shallow', cluster.api, second);
      // Every place in line was given back: the team's waiting set is gone.
      assert.deepEqual(await cluster.redisKeys('slot-waiters:*'), []);
    });
  },
);

/**
 * Both implementations driven directly, for what HTTP cannot show without waiting on a clock:
 * a request that leaves the line gives its place back at once, and in Redis a place another
 * process holds counts until its lease runs out (a process that died renews it no more).
 */
describe('team queue depth: the concurrency implementations', firstPassOnly('no server'), () => {
  const oneAndOne = async () => ({ concurrency: 1, queueDepth: 1 });

  /** A request for a slot of team `t`, and a promise settled once it is in line. */
  function ask(concurrency: TeamConcurrency, signal = new AbortController().signal) {
    const waiting = Promise.withResolvers<void>();
    return { lease: concurrency.acquire('t', signal, waiting.resolve), waiting: waiting.promise };
  }

  function isQueueFull(error: unknown): true {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 429);
    assert.equal(error.headers['retry-after'], String(limits.teamQueueFullRetryS));
    assert.deepEqual(error.body(), queueFull(1, 1));
    return true;
  }

  /** One running and one in line; a third is refused; the one in line leaves, and the next may wait. */
  async function leaverGivesPlaceBack(concurrency: TeamConcurrency): Promise<void> {
    const running = await ask(concurrency).lease;
    const leave = new AbortController();
    const leaver = ask(concurrency, leave.signal);
    await leaver.waiting;
    await assert.rejects(ask(concurrency).lease, isQueueFull);
    leave.abort();
    await assert.rejects(leaver.lease, { name: 'AbortError' });
    const next = ask(concurrency);
    await next.waiting;
    running.release();
    const lease = await next.lease;
    assert.equal(lease.limited, true);
    lease.release();
  }

  it('in one process: a full line refuses, a leaver gives its place back; unset, any number wait', async () => {
    await leaverGivesPlaceBack(new InProcessTeamConcurrency(oneAndOne));
    const unbounded = new InProcessTeamConcurrency(async () => ({ concurrency: 1, queueDepth: null }));
    const running = await ask(unbounded).lease;
    const inLine = Array.from({ length: 5 }, () => ask(unbounded));
    await Promise.all(inLine.map((r) => r.waiting));
    running.release();
    for (const r of inLine) (await r.lease).release();
  });

  it("in Redis: a leaver's place is given back, and a place another process stopped renewing expires", async (t) => {
    const prefix = `quire-test-${Math.random().toString(36).slice(2)}`;
    const redis = new Redis(redisUrl);
    const concurrency = await RedisTeamConcurrency.open(redis, prefix, oneAndOne);
    t.after(async () => {
      concurrency.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });
    const line = `${prefix}:slot-waiters:t`;
    await leaverGivesPlaceBack(concurrency);
    assert.equal(await redis.zcard(line), 0);

    const running = await ask(concurrency).lease;
    // Another API process's request in line, its lease renewed: it counts here too.
    await redis.zadd(line, Date.now() + limits.clusterSlotLeaseMs, 'elsewhere');
    await assert.rejects(ask(concurrency).lease, isQueueFull);
    // That process died: its lease ran out unrenewed, and the place is free again.
    await redis.zadd(line, Date.now() - 1, 'elsewhere');
    const next = ask(concurrency);
    await next.waiting;
    const members = await redis.zrange(line, '0', '-1');
    assert.equal(members.length, 1);
    assert.notEqual(members[0], 'elsewhere');
    running.release();
    (await next.lease).release();
    assert.equal(await redis.zcard(line), 0);
  });
});
