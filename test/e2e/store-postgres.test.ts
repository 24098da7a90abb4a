import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { hashApiKey } from '../../src/store/api-keys.ts';
import { migrate, migrationsDir } from '../../src/store/postgres-migrate.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { ApiKeyRecord, SessionRecord, Store } from '../../src/store/store.ts';
import { storeUnavailable } from '../../src/store/store-unavailable.ts';
import { firstPassOnly } from '../helpers/mode.ts';
import { createDatabase } from '../helpers/postgres.ts';
import { parse, type RunningServer, repoRoot, startServer } from '../helpers/server.ts';
import { api, createSession } from '../helpers/sessions.ts';

/**
 * The PostgreSQL store (cluster mode's first piece) against the machine's PostgreSQL on
 * 127.0.0.1:5432 (npm test starts it: scripts/start-services.sh). Each test has a database of
 * its own, made empty and dropped after, so that test files running in parallel never meet.
 */

const run = promisify(execFile);

const cleanups = new WeakMap<TestContext, (() => unknown)[]>();
/** Run `fn` when the test ends, last deferred first: servers stop before their database goes. */
function defer(t: TestContext, fn: () => unknown): void {
  const fns = cleanups.get(t) ?? [];
  if (!cleanups.has(t)) {
    cleanups.set(t, fns);
    t.after(async () => {
      for (const f of fns.reverse()) await f();
    });
  }
  fns.push(fn);
}

/** A new empty database, dropped when the test ends; its URL. */
async function freshDatabase(t: TestContext): Promise<string> {
  const { url, drop } = await createDatabase();
  defer(t, drop);
  return url;
}

/**
 * A one-connection pool, as migrate takes. pool.end() resolves before its connections have
 * closed, so the database's drop (WITH FORCE) may still terminate one; a pool without an error
 * listener would throw that as an uncaught exception into whichever test runs then.
 */
function poolOf(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  return pool;
}

/** Rows of one query on the database, outside Quire. */
async function query<R extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** The key CLI, on the PostgreSQL store; its data folder is one nothing else uses. */
function cli(databaseUrl: string, t: TestContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
  defer(t, () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env = { ...process.env, QUIRE_DATABASE_URL: databaseUrl, QUIRE_DATA_DIR: dataDir };
  return {
    dataDir,
    run: (...args: string[]) =>
      run(process.execPath, [path.join(repoRoot, 'src/cli/quire.ts'), ...args], { env }),
  };
}

async function started(t: TestContext, env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer({ QUIRE_WORKERS: '1', ...env });
  defer(t, () => server.stop());
  return server;
}

const html = { bytes: '<p>x</p>', filename: 'a.html' };

/**
 * A TCP link to the machine's PostgreSQL that the test can cut (no listener, every connection
 * reset), restore on the same port, or stall (bytes stop flowing both ways, nothing is closed: a
 * partition): the database unreachable for one server, and no other.
 */
async function cuttableLink(targetPort: number) {
  const sockets = new Set<net.Socket>();
  let stalled = false;
  const listen = async (port = 0) => {
    const server = net.createServer((client) => {
      if (stalled) {
        client.pause();
        sockets.add(client);
        client.on('error', () => {});
        return;
      }
      const upstream = net.connect(targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return server;
  };
  let server: net.Server | undefined = await listen();
  const port = (server.address() as net.AddressInfo).port;
  const cut = async () => {
    const closed = server && new Promise((resolve) => server!.close(resolve));
    server = undefined;
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: async () => {
      server = await listen(port);
    },
    stall: () => {
      stalled = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
  };
}

const firstPass = firstPassOnly('starts its servers on PostgreSQL itself');
describe('PostgreSQL store behind a real server', { concurrency: 1, ...firstPass }, () => {
  // One database and one server for these tests: the server reaches PostgreSQL through a link
  // the last test cuts.
  let url: string;
  let dropDatabase: (() => Promise<void>) | undefined;
  let link: Awaited<ReturnType<typeof cuttableLink>> | undefined;
  let running: RunningServer | undefined;
  before(async () => {
    const database = await createDatabase();
    url = database.url;
    dropDatabase = database.drop;
    link = await cuttableLink(Number(new URL(url).port));
    const linked = new URL(url);
    linked.port = String(link.port);
    running = await startServer({
      QUIRE_WORKERS: '1',
      QUIRE_DATABASE_URL: linked.href,
      QUIRE_NODE_ID: 'node-a',
    });
  });
  after(async () => {
    await running?.stop();
    await link?.cut();
    await dropDatabase?.();
  });
  const shared = () => {
    if (!running || !link) throw new Error('the server is not running');
    return { server: running, link };
  };

  it('keys made with the CLI work over HTTP until revoked; each request writes an audit event', async (t) => {
    const { server } = shared();
    const keys = cli(url, t);

    const key = (await keys.run('keys', 'create', '--team', 'acme', '--label', 'ci')).stdout.trim();
    assert.match(key, /^qk_[\w-]{43}$/);
    const sentAt = Date.now();
    assert.equal((await parse(server, { file: html, key })).status, 200);
    const answeredAt = Date.now();

    const listed = (await keys.run('keys', 'list', '--team', 'acme')).stdout;
    assert.match(listed, /team=acme {2}active/);
    const [id, prefix] = listed.split(/\s+/);
    assert.match((await keys.run('keys', 'revoke', prefix!)).stdout, /revoked 1 key/);
    assert.equal((await parse(server, { file: html, key })).status, 401);
    assert.match((await keys.run('keys', 'list')).stdout, new RegExp(`${id}.*revoked 20`));

    // The key lives in PostgreSQL, as its hash only; neither process made a SQLite file.
    const stored = await query(url, 'SELECT * FROM api_keys WHERE id = $1', [id]);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.hash, hashApiKey(key));
    assert.ok(!JSON.stringify(stored).includes(key));
    assert.ok(!fs.existsSync(path.join(server.dataDir, 'quire.db')));
    assert.ok(!fs.existsSync(path.join(keys.dataDir, 'quire.db')));

    // The revoked key's request was refused before it counted as the key's, so one event.
    const events = await query(url, 'SELECT * FROM audit_events WHERE key_id = $1', [id]);
    assert.equal(events.length, 1);
    assert.deepEqual(
      {
        team: events[0]!.team,
        action: events[0]!.action,
        status: events[0]!.status,
        filename: events[0]!.filename,
        bytes: events[0]!.bytes,
        zdr: events[0]!.zero_data_retention,
      },
      { team: 'acme', action: 'parse', status: 200, filename: 'a.html', bytes: '8', zdr: false },
    );
    // Stamped while the request ran, by this machine's clock (the server's and this process's).
    assert.ok(events[0]!.at instanceof Date);
    assert.ok(
      sentAt <= events[0]!.at.getTime() && events[0]!.at.getTime() <= answeredAt,
      String(events[0]!.at),
    );
  });

  it('records a browser session, refuses a second writer of its profile, and marks it destroyed', async () => {
    const { server } = shared();
    const profile = { name: 'shop', saveChanges: true };
    const { id } = await createSession(server, { profile });
    const second = await api(server, 'POST', '/v2/interact', { profile });
    assert.equal(second.status, 409, JSON.stringify(second.body));

    const [row] = await query(url, 'SELECT * FROM sessions');
    assert.equal(row!.id, id);
    assert.equal(row!.status, 'active');
    assert.equal(row!.node_id, 'node-a');
    assert.equal(row!.profile_name, 'shop');
    assert.equal(row!.profile_writer, true);
    assert.match(row!.cdp_token_hash, /^[0-9a-f]{64}$/);

    assert.equal((await api(server, 'DELETE', `/v2/interact/${id}`)).status, 200);
    const [closed] = await query(url, 'SELECT status, closed_at, close_reason FROM sessions WHERE id = $1', [
      id,
    ]);
    assert.equal(closed!.status, 'destroyed');
    assert.equal(closed!.close_reason, 'deleted by the caller');
    assert.ok(closed!.closed_at instanceof Date);
  });

  it('answers 503 with Retry-After while PostgreSQL cannot be reached, and serves again once it is back (last: it cuts the link)', async (t) => {
    // A key from the store, as a cluster's keys are (the server's QUIRE_API_KEYS are held in memory).
    const { server: running, link } = shared();
    const server = { ...running, key: (await cli(url, t).run('keys', 'create')).stdout.trim() };
    assert.equal((await parse(server, { file: html })).status, 200);
    assert.equal((await api(server, 'GET', '/v2/interact')).status, 200);

    await link.cut();
    for (const res of [await parse(server, { file: html }), await api(server, 'GET', '/v2/interact')]) {
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.success, false);
      assert.match(res.body.error, /database .* cannot be reached; try again shortly/);
      assert.equal(res.headers.get('retry-after'), '5');
    }

    await link.restore();
    const back = await parse(server, { file: html });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.match(back.body.data.markdown, /^x$/m);
    assert.equal((await api(server, 'GET', '/v2/interact')).status, 200);
  });
});

// Each test has a database and servers of its own; two at a time, as they mostly wait on starts.
describe('PostgreSQL servers starting together and restarting', { concurrency: 2, ...firstPass }, () => {
  it('two servers starting at once on an empty database apply the migrations once, and share keys', async (t) => {
    const url = await freshDatabase(t);
    const [a, b] = await Promise.all([
      started(t, { QUIRE_DATABASE_URL: url }),
      started(t, { QUIRE_DATABASE_URL: url }),
    ]);
    const files = fs.readdirSync(migrationsDir).filter((f) => f.endsWith('.sql'));
    const applied = await query<{ version: number; name: string }>(
      url,
      'SELECT version, name FROM schema_migrations ORDER BY version',
    );
    assert.deepEqual(
      applied.map((m) => m.name),
      files.sort(),
    );

    const key = (await cli(url, t).run('keys', 'create')).stdout.trim();
    assert.equal((await parse(a, { file: html, key })).status, 200);
    assert.equal((await parse(b, { file: html, key })).status, 200);
  });

  it('a server restarted on the same database keeps its keys and makes no new first key', async (t) => {
    const url = await freshDatabase(t);
    const env = { QUIRE_DATABASE_URL: url, QUIRE_API_KEYS: '' };
    const first = await startServer(env);
    const printed = /First API key for team "default".*\n\n\s+(qk_\S+)/.exec(first.output());
    await first.stop();
    assert.ok(printed, first.output());

    const second = await started(t, env);
    assert.doesNotMatch(second.output(), /First API key/);
    assert.equal((await parse(second, { file: html, key: printed[1]! })).status, 200);
    const stored = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM api_keys');
    assert.equal(stored[0]!.n, '1');
  });
});

describe('PostgresStore', firstPassOnly('the store alone on PostgreSQL, no server'), () => {
  /** Every Store method, with the edge cases SqliteStore defines; returns what each call gave. */
  async function exercise(store: Store): Promise<Record<string, unknown>> {
    const seen: Record<string, unknown> = {};
    const at = '2026-01-02T03:04:05.678Z';
    const key = (id: string, team: string, createdAt = at): ApiKeyRecord => ({
      id,
      team,
      label: team === 'a' ? 'label' : null,
      prefix: `qk_${id.slice(0, 8)}`,
      createdAt,
      revokedAt: null,
    });
    // Two keys created in the same millisecond list in the order they were made.
    await store.insertApiKey(key('7f000000-0000-4000-8000-000000000002', 'a'), 'h2');
    await store.insertApiKey(key('7f000000-0000-4000-8000-000000000001', 'b'), 'h1');
    await store.insertApiKey(
      key('12345678-aaaa-4000-8000-000000000000', 'a', '2026-01-01T00:00:00.000Z'),
      'h3',
    );
    await store.insertApiKey(
      key('12345678-bbbb-4000-8000-000000000000', 'a', '2026-01-03T00:00:00.000Z'),
      'h4',
    );
    await store.insertApiKey(key('abcdef01-0000-4000-8000-000000000000', 'c'), 'h5');
    seen.listAll = await store.listApiKeys();
    seen.listA = await store.listApiKeys('a');
    seen.listNone = await store.listApiKeys('nobody');
    seen.found = await store.findKeyByHash('h1');
    seen.notFound = await store.findKeyByHash('nope');
    seen.count = await store.countActiveApiKeys();
    seen.revokeBlank = await store.revokeApiKey('  ');
    seen.revokeShort = await store.revokeApiKey('abcdef0');
    seen.revokeAmbiguous = await store.revokeApiKey('12345678');
    seen.revokeStart = await store.revokeApiKey('abcdef01');
    seen.revokeEllipsis = await store.revokeApiKey(' qk_7f000000… ');
    seen.revokeAgain = await store.revokeApiKey('qk_7f000000...');
    seen.revokeId = await store.revokeApiKey('12345678-aaaa-4000-8000-000000000000');
    seen.revokeUniqueNow = await store.revokeApiKey('12345678');
    seen.revokedFound = await store.findKeyByHash('h2');
    seen.countAfter = await store.countActiveApiKeys();
    // When it happened is the clock's; that it happened is the store's.
    seen.revokedAt = (await store.listApiKeys()).map((k) => k.revokedAt !== null);

    await store.recordAudit({
      at,
      team: 'a',
      keyId: 'k',
      requestId: 'r',
      action: 'scrape',
      status: 200,
      username: null,
      filename: null,
      format: null,
      bytes: null,
      durationMs: 12,
      zeroDataRetention: true,
    });

    await store.recordAudit({
      at: '2026-01-03T00:00:00.000Z',
      team: 'b',
      keyId: 'k2',
      requestId: 'r2',
      action: 'parse',
      status: 402,
      username: 'ann',
      filename: 'a.pdf',
      format: 'pdf',
      bytes: 2048,
      durationMs: 3,
      zeroDataRetention: false,
    });
    // Sequence numbers are each database's own; the order and the events are the store's.
    const audit = async (q: Parameters<Store['readAudit']>[0]) =>
      (await store.readAudit(q)).map(({ seq, ...event }) => event);
    seen.auditAll = await audit({ since: '2000-01-01T00:00:00.000Z', afterSeq: 0, limit: 10 });
    seen.auditSince = await audit({ since: '2026-01-02T12:00:00.000Z', afterSeq: 0, limit: 10 });
    seen.auditTeam = await audit({ since: '2000-01-01T00:00:00.000Z', team: 'a', afterSeq: 0, limit: 10 });
    const [first] = await store.readAudit({ since: '2000-01-01T00:00:00.000Z', afterSeq: 0, limit: 1 });
    seen.auditPage = await audit({ since: '2000-01-01T00:00:00.000Z', afterSeq: first!.seq, limit: 10 });

    seen.teamMissing = await store.getTeam('t1');
    seen.teamCreated = await store.updateTeam('t1', {});
    seen.teamSet = await store.updateTeam('t1', {
      concurrency: 2,
      ratePerMinute: 0,
      audit: false,
      zdr: 'forced',
    });
    seen.teamCleared = await store.updateTeam('t1', { concurrency: null, keyRatePerMinute: 7 });
    seen.reserveUnlimited = await store.reserveCredits('t1', 1);
    seen.reserveNoRow = await store.reserveCredits('nobody', 1);
    seen.adjustUnlimited = await store.adjustCredits('t1', 5);
    seen.teamBalance = await store.updateTeam('t1', { credits: 2 });
    seen.reserves = [
      await store.reserveCredits('t1', 1),
      await store.reserveCredits('t1', 1),
      await store.reserveCredits('t1', 1),
    ];
    seen.refund = await store.adjustCredits('t1', 1);
    seen.overcharge = await store.adjustCredits('t1', -5);
    seen.teams = await store.listTeams();

    const session = (id: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
      id,
      team: 't',
      status: 'active',
      createdAt: at,
      lastActivity: at,
      expiresAt: '2026-01-02T04:04:05.678Z',
      ttlS: 3600,
      activityTtlS: 600,
      streamWebView: true,
      profileName: null,
      profileWriter: false,
      nodeId: 'n1',
      pid: null,
      closedAt: null,
      closeReason: null,
      ...over,
    });
    const tokens = (id: string) => ({ cdp: `cdp-${id}`, view: `view-${id}`, control: `control-${id}` });
    const insert = (id: string, over: Partial<SessionRecord> = {}) =>
      store.insertSession(session(id, over), tokens(id));
    const writer = { profileName: 'p', profileWriter: true };
    seen.insertWriter = await insert('s1', writer);
    seen.insertSecondWriter = await insert('s2', writer);
    seen.insertReader = await insert('s3', { profileName: 'p', streamWebView: false });
    seen.insertWriterOtherTeam = await insert('s4', { ...writer, team: 'u' });
    seen.insertWriterOtherProfile = await insert('s5', {
      profileName: 'q',
      profileWriter: true,
      nodeId: 'n2',
    });
    seen.insertWriterNoProfile = await insert('s6', {
      profileWriter: true,
      createdAt: '2026-01-02T03:04:06.000Z',
    });
    seen.insertWriterNoProfileAgain = await insert('s7', { profileWriter: true });
    seen.get = await store.getSession('s1');
    seen.getMissing = await store.getSession('nope');
    seen.tokens = await store.getSessionTokenHashes('s3');
    seen.tokensMissing = await store.getSessionTokenHashes('nope');
    await store.setSessionPid('s1', 4242);
    await store.touchSession('s1', '2026-01-02T03:05:00.000Z');
    seen.inUse = await store.profileInUse('t', 'p');
    seen.inUseElsewhere = await store.profileInUse('t', 'other');
    seen.destroyed = await store.markSessionDestroyed('s1', '2026-01-02T03:06:00.000Z', 'done');
    seen.destroyedAgain = await store.markSessionDestroyed('s1', '2026-01-02T03:07:00.000Z', 'again');
    await store.touchSession('s1', '2026-01-02T03:08:00.000Z');
    seen.afterDestroy = await store.getSession('s1');
    seen.writerAfterDestroy = await insert('s8', writer);
    await store.markSessionDestroyed('s3', '2026-01-02T03:06:00.000Z', 'done');
    seen.listTeam = (await store.listSessions('t')).map((s) => s.id);
    seen.listActive = (await store.listSessions('t', 'active')).map((s) => s.id);
    seen.listDestroyed = await store.listSessions('t', 'destroyed');
    seen.activeOnN1 = (await store.listActiveSessions('n1')).map((s) => s.id).sort();
    seen.activeOnN2 = await store.listActiveSessions('n2');
    return seen;
  }

  it('behaves as SqliteStore, call for call', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-store-'));
    defer(t, () => fs.rmSync(dir, { recursive: true, force: true }));
    const sqlite = new SqliteStore(path.join(dir, 'quire.db'));
    const postgres = await PostgresStore.open(await freshDatabase(t));
    try {
      const expected = await exercise(sqlite);
      assert.deepEqual(await exercise(postgres), expected);
      // Both the same, and both as the Store interface says.
      assert.deepEqual(
        // Every active key with the printed prefix is revoked: two here.
        [expected.revokeShort, expected.revokeAmbiguous, expected.revokeStart, expected.revokeEllipsis],
        [0, 0, 1, 2],
      );
      assert.deepEqual([expected.revokeAgain, expected.revokeUniqueNow, expected.countAfter], [0, 1, 0]);
      assert.deepEqual(
        [
          expected.insertWriter,
          expected.insertSecondWriter,
          expected.insertReader,
          expected.writerAfterDestroy,
        ],
        [true, false, true, true],
      );
      assert.deepEqual(expected.listTeam, ['s6', 's8', 's7', 's5', 's3', 's1']);
      assert.deepEqual([expected.destroyed, expected.destroyedAgain], [true, false]);
      assert.deepEqual(expected.reserves, ['taken', 'taken', 'short']);
      assert.deepEqual(
        [
          expected.reserveUnlimited,
          expected.reserveNoRow,
          expected.adjustUnlimited,
          expected.refund,
          expected.overcharge,
        ],
        ['unlimited', 'unlimited', null, 1, 0],
      );
      assert.deepEqual(
        (expected.teams as { team: string }[]).map((t) => t.team),
        ['a', 'b', 'c', 't1'],
      );
      assert.deepEqual((expected.auditPage as unknown[]).length, 1);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });

  it('gives up on a query PostgreSQL does not answer after 15 s (cut off without a reset), as a store that cannot be reached', async (t) => {
    const url = await freshDatabase(t);
    const link = await cuttableLink(Number(new URL(url).port));
    const linked = new URL(url);
    linked.port = String(link.port);
    // node-postgres times a query with setTimeout: mocked from before the store opens (so that its
    // pool's own timers are all on one clock), the 15 s pass when the test says, not in real time.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const store = await PostgresStore.open(linked.href);
    try {
      assert.equal(await store.countActiveApiKeys(), 0);
      link.stall();
      let settled = false;
      const stalled = store.countActiveApiKeys().finally(() => {
        settled = true;
      });
      // The pool hands its idle connection over on the next tick, and the query (and its timer) go then.
      await new Promise((resolve) => setImmediate(resolve));
      t.mock.timers.tick(15_000 - 1);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(settled, false, 'given up before 15 s');
      t.mock.timers.tick(1);
      const error = await stalled.then(
        () => assert.fail('a stalled database answered'),
        (e: unknown) => e,
      );
      // What the error handler answers for it (the cut case is shown over HTTP above).
      const refusal = storeUnavailable(error);
      assert.deepEqual(
        [refusal?.status, refusal?.headers, refusal?.body()],
        [
          503,
          { 'retry-after': '5' },
          {
            success: false,
            error: 'The database Quire keeps its keys and teams in cannot be reached; try again shortly.',
          },
        ],
        String(error),
      );
    } finally {
      t.mock.timers.reset();
      await link.cut();
      await store.close();
    }
  });

  it('lets one writer of a profile win when two processes insert at once', async (t) => {
    const url = await freshDatabase(t);
    const a = await PostgresStore.open(url);
    const b = await PostgresStore.open(url);
    try {
      const at = new Date().toISOString();
      const record = (id: string, profileName: string): SessionRecord => ({
        id,
        team: 't',
        status: 'active',
        createdAt: at,
        lastActivity: at,
        expiresAt: at,
        ttlS: 60,
        activityTtlS: 60,
        streamWebView: false,
        profileName,
        profileWriter: true,
        nodeId: id,
        pid: null,
        closedAt: null,
        closeReason: null,
      });
      const tokens = { cdp: 'c', view: 'v', control: 'x' };
      for (let round = 0; round < 20; round++) {
        const wins = await Promise.all([
          a.insertSession(record(`a${round}`, `p${round}`), tokens),
          b.insertSession(record(`b${round}`, `p${round}`), tokens),
        ]);
        assert.equal(wins.filter(Boolean).length, 1, `round ${round}: ${wins}`);
      }
      // A repeated id is an error, as in SQLite, not a quiet refusal.
      assert.equal(await a.insertSession(record('once', 'q1'), tokens), true);
      await assert.rejects(b.insertSession(record('once', 'q2'), tokens), /duplicate key/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('applies each migration once when several processes migrate at once', async (t) => {
    const url = await freshDatabase(t);
    const pools = Array.from({ length: 4 }, () => poolOf(url));
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool)));
      const versions = fs.readdirSync(migrationsDir).flatMap((f) => /^(\d+)_.+\.sql$/.exec(f)?.[1] ?? []);
      assert.deepEqual(
        applied.filter((v) => v.length > 0),
        [versions.map(Number).sort((x, y) => x - y)],
      );
      assert.deepEqual(await migrate(pools[0]!), []);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('leaves the schema as it was when a migration fails', async (t) => {
    const url = await freshDatabase(t);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-migrations-'));
    defer(t, () => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, '001_good.sql'), 'CREATE TABLE good (x integer);');
    fs.writeFileSync(path.join(dir, '002_bad.sql'), 'CREATE TABLE bad (x nosuchtype);');
    const pool = poolOf(url);
    try {
      await assert.rejects(migrate(pool, dir), /nosuchtype/);
      const tables = await query(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
      assert.deepEqual(tables, []);
    } finally {
      await pool.end();
    }
  });
});
