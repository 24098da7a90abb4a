import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { ApiError } from '../../src/errors.ts';
import type { JobStore, NewJob } from '../../src/jobs/job-store.ts';
import { JobWatcher, type JobWatcherDeps } from '../../src/jobs/job-watcher.ts';
import { limits } from '../../src/limits.ts';
import type { RateLimits } from '../../src/quota/rate-limit.ts';
import type { EffectiveSettings } from '../../src/quota/team-settings.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

/**
 * The job watcher (src/jobs/job-watcher.ts) on a real SQLite job store, behind a loopback HTTP
 * server, with its key check, rate limiter and team settings stubbed: what the HTTP tests cannot
 * reach cheaply. A catch-up past limits.jobStatusBytes, documents as they finish, store errors,
 * shutdown, the per-team bound, the rate limit, a client that leaves. Polls every few
 * milliseconds; the tests wait for messages and closes, never for time.
 */

const settings: EffectiveSettings = {
  concurrency: 2,
  queueDepth: null,
  ratePerMinute: 0,
  keyRatePerMinute: 0,
  audit: false,
  zdr: 'allowed',
  metered: false,
};

interface Message {
  type: string;
  data: {
    status?: string;
    total?: number;
    completed?: number;
    creditsUsed?: number;
    data?: { n: number }[];
    n?: number;
  };
}

/** A client's watch: every message as it comes, and the close. */
class Watch {
  readonly socket: WebSocket;
  readonly messages: Message[] = [];
  /** Sizes of the frames, as received. */
  readonly sizes: number[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters: (() => void)[] = [];

  constructor(url: string, { key, protocol }: { key?: string; protocol?: string }) {
    this.socket = new WebSocket(url, protocol ? [protocol] : [], {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    this.socket.on('message', (data: Buffer) => {
      this.sizes.push(data.length);
      this.messages.push(JSON.parse(data.toString('utf8')) as Message);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve, reject) => {
      this.socket.on('error', reject);
      this.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
    });
  }

  /** Resolves once `n` messages have come. */
  async count(n: number): Promise<void> {
    while (this.messages.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  opened(): Promise<void> {
    return new Promise((resolve) => this.socket.once('open', () => resolve()));
  }
}

/** Resolves once `check` holds, looking again after each turn of the event loop; fails after 5 s. */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    assert.ok(Date.now() < deadline, 'the condition never held');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the job watcher', () => {
  let dir: string;
  let store: SqliteStore;
  let server: http.Server;
  let base: string;
  let watcher: JobWatcher;
  let serving = false;
  let errors: { details: object; message: string }[];
  let consumed: { team: string; limits: RateLimits | undefined }[];
  let retryAfter: number;
  /** When set, countDocuments throws this. */
  let failing: Error | undefined;

  /** The store, but countDocuments fails while `failing` is set. */
  const jobs = (): JobStore =>
    new Proxy(store.jobs, {
      get(target, name, receiver) {
        if (name === 'countDocuments' && failing) {
          const error = failing;
          return async () => {
            throw error;
          };
        }
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  const deps = (overrides: Partial<JobWatcherDeps> = {}): JobWatcherDeps => ({
    jobs: jobs(),
    auth: {
      async authenticate({ headers }) {
        if (headers.authorization === 'Bearer key-a') return { team: 'team-a', keyId: 'key-a' };
        if (headers.authorization === 'Bearer key-b') return { team: 'team-b', keyId: 'key-b' };
        throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: Invalid token');
      },
    },
    rateLimiter: {
      async consume(team, given) {
        consumed.push({ team, limits: given });
        return retryAfter;
      },
    },
    teams: { get: async () => settings },
    log: { error: (details, message) => errors.push({ details, message }) },
    pollMs: 2,
    ...overrides,
  });

  async function serve(options: Partial<JobWatcherDeps> = {}): Promise<void> {
    if (serving) await watcher.close();
    watcher = new JobWatcher(deps(options));
    serving = true;
  }

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-watcher-'));
    store = new SqliteStore(path.join(dir, 'quire.db'));
    server = http.createServer((_req, res) => res.writeHead(404).end());
    server.on('upgrade', (req, socket, head) => {
      if (watcher.handles(req)) watcher.upgrade(req, socket, head);
      else socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await watcher.close();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    errors = [];
    consumed = [];
    retryAfter = 0;
    failing = undefined;
    await serve();
  });

  const now = () => new Date().toISOString();

  /** A job of team-a with `pages` pages queued (then claimed: active), in status scraping. */
  async function newJob(pages: number, overrides: Partial<NewJob> = {}) {
    const id = randomUUID();
    await store.jobs.createJob({
      id,
      kind: 'crawl',
      team: 'team-a',
      keyId: 'key-a',
      url: 'https://example.com/',
      options: '{}',
      webhook: null,
      status: 'scraping',
      zeroDataRetention: false,
      createdAt: now(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
      robots: null,
      ...overrides,
    });
    await store.jobs.enqueuePages(
      id,
      Array.from({ length: pages }, (_, i) => ({ key: `k${i}`, url: `https://example.com/${i}`, depth: 0 })),
      Number.POSITIVE_INFINITY,
    );
    const claimed = await store.jobs.claimPages(id, pages);
    let done = 0;
    return {
      id,
      /** Finish the next page with a document `{"n":<i>,"pad":"…"}` of about `bytes`. */
      async finish(bytes = 50) {
        const n = done++;
        const pad = 'x'.repeat(Math.max(0, bytes - 20));
        await store.jobs.completePage(claimed[n]!.id, Buffer.from(`{"n":${n},"pad":"${pad}"}`), 1, now());
      },
      end: (status: 'completed' | 'cancelled' = 'completed') => store.jobs.updateJob(id, { status }),
    };
  }

  it('sends a catch-up, then each document as it finishes, then the final status and done', async () => {
    const job = await newJob(3);
    await job.finish();
    const watch = new Watch(`${base}/v2/crawl/${job.id}`, { protocol: 'key-a' });
    await watch.opened();
    // The subprotocol is the key, and echoed.
    assert.equal(watch.socket.protocol, 'key-a');
    await watch.count(1);
    const [catchup] = watch.messages;
    assert.equal(catchup?.type, 'catchup');
    assert.equal(catchup?.data.status, 'scraping');
    assert.deepEqual(
      catchup?.data.data?.map((d) => d.n),
      [0],
    );
    assert.equal(catchup?.data.total, 3);
    assert.equal(catchup?.data.completed, 1);
    await job.finish();
    await watch.count(2);
    assert.deepEqual(watch.messages[1]?.type, 'document');
    assert.equal(watch.messages[1]?.data.n, 1);
    await job.finish();
    await job.end();
    assert.deepEqual(await watch.closed, { code: 1000, reason: '{"type":"done"}' });
    assert.deepEqual(
      watch.messages.map((m) => m.type),
      ['catchup', 'document', 'document', 'status'],
    );
    assert.equal(watch.messages[2]?.data.n, 2);
    const final = watch.messages[3]!.data;
    assert.deepEqual(
      [final.status, final.total, final.completed, final.creditsUsed, final.data],
      ['completed', 3, 3, 3, []],
    );
    // One request of the team and its key, with the team's limits.
    assert.deepEqual(consumed, [
      { team: 'team-a', limits: { perMinute: 0, key: { id: 'key-a', perMinute: 0 } } },
    ]);
  });

  it('hands each document of a zero-data-retention job over once, then keeps it no more', async () => {
    const job = await newJob(3, { zeroDataRetention: true });
    await job.finish();
    const first = new Watch(`${base}/v2/crawl/${job.id}`, { protocol: 'key-a' });
    await first.count(1);
    assert.deepEqual(
      first.messages[0]?.data.data?.map((d) => d.n),
      [0],
    );
    await job.finish();
    await first.count(2);
    assert.equal(first.messages[1]?.data.n, 1);
    first.socket.close();
    await first.closed;
    assert.equal(await store.jobs.countDocuments(job.id), 0);
    // A second watcher gets only what finished since.
    await job.finish();
    await job.end();
    const second = new Watch(`${base}/v2/crawl/${job.id}`, { protocol: 'key-a' });
    assert.deepEqual(await second.closed, { code: 1000, reason: '{"type":"done"}' });
    assert.deepEqual(
      second.messages[0]?.data.data?.map((d) => d.n),
      [2],
    );
    assert.equal(second.messages[0]?.data.completed, 3);
  });

  it('prefers the Authorization header to the subprotocol, and echoes the protocol anyway', async () => {
    const job = await newJob(1);
    await job.finish();
    await job.end();
    const watch = new Watch(`${base}/v2/batch/scrape/${job.id}`, { key: 'key-a', protocol: 'not-a-key' });
    await watch.opened();
    assert.equal(watch.socket.protocol, 'not-a-key');
    assert.deepEqual(await watch.closed, { code: 1000, reason: '{"type":"done"}' });
    assert.deepEqual(
      watch.messages.map((m) => [m.type, m.data.status]),
      [['catchup', 'completed']],
    );
  });

  it('holds at most limits.jobStatusBytes in the catch-up and sends the rest at once, before the end', async () => {
    const job = await newJob(12);
    const size = 1024 * 1024 - 64;
    for (let i = 0; i < 12; i++) await job.finish(size);
    await job.end();
    const watch = new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' });
    assert.deepEqual(await watch.closed, { code: 1000, reason: '{"type":"done"}' });
    const [catchup, ...rest] = watch.messages;
    // A finished job whose documents do not fit: the catch-up says scraping (an SDK ends its watch on
    // a terminal one, and would miss what follows), the final status says completed.
    assert.equal(catchup?.type, 'catchup');
    assert.equal(catchup?.data.status, 'scraping');
    assert.ok(watch.sizes[0]! <= limits.jobStatusBytes + 256, `catch-up of ${watch.sizes[0]} bytes`);
    const inCatchup = catchup!.data.data!.map((d) => d.n);
    assert.equal(inCatchup.length, 10);
    assert.deepEqual(
      rest.map((m) => m.type),
      ['document', 'document', 'status'],
    );
    const all = [...inCatchup, ...rest.slice(0, -1).map((m) => m.data.n)];
    assert.deepEqual(
      all,
      Array.from({ length: 12 }, (_, i) => i),
    );
    assert.equal(rest.at(-1)?.data.status, 'completed');
  });

  it('closes 3000 without a valid key, 1008 for another team, an unknown or a malformed id', async () => {
    const job = await newJob(1);
    const cases: [string, { key?: string; protocol?: string }, number, string][] = [
      [`/v2/crawl/${job.id}`, { protocol: 'key-x' }, 3000, 'Unauthorized: Invalid token'],
      [`/v2/crawl/${job.id}`, {}, 3000, 'Unauthorized: Invalid token'],
      [`/v2/crawl/${job.id}`, { key: 'key-b' }, 1008, 'Job not found'],
      [`/v2/crawl/${randomUUID()}`, { key: 'key-a' }, 1008, 'Job not found'],
      ['/v2/crawl/123', { key: 'key-a' }, 1008, 'Invalid job ID'],
    ];
    for (const [where, how, code, text] of cases) {
      const watch = new Watch(`${base}${where}`, how);
      assert.deepEqual(
        await watch.closed,
        { code, reason: JSON.stringify({ type: 'error', error: text }) },
        where,
      );
      assert.deepEqual(watch.messages, []);
    }
  });

  it('closes 1008 over the rate limit, before looking at the job', async () => {
    const job = await newJob(1);
    retryAfter = 7;
    const watch = new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' });
    assert.deepEqual(await watch.closed, {
      code: 1008,
      reason: '{"type":"error","error":"Rate limit exceeded. Please retry after 7s."}',
    });
    assert.equal(consumed.length, 1);
  });

  it('holds a team to its bound of open watchers, and frees a place when one leaves', async () => {
    await serve({ perTeam: 2 });
    const job = await newJob(1);
    const url = `${base}/v2/crawl/${job.id}`;
    const first = new Watch(url, { key: 'key-a' });
    const second = new Watch(url, { key: 'key-a' });
    await Promise.all([first.count(1), second.count(1)]);
    const third = new Watch(url, { key: 'key-a' });
    assert.deepEqual(await third.closed, {
      code: 1008,
      reason: '{"type":"error","error":"Too many watchers: a team may keep 2 open at once."}',
    });
    // Another team's count is its own (the job is not theirs: 1008 Job not found, not the bound).
    const other = new Watch(url, { key: 'key-b' });
    assert.match((await other.closed).reason, /Job not found/);
    first.socket.close();
    await first.closed;
    // The client's close and the server's are two sockets' events, in either order.
    await until(() => watcher.watching === 1);
    const fourth = new Watch(url, { key: 'key-a' });
    await fourth.count(1);
    assert.equal(watcher.watching, 2);
    await job.end();
    await Promise.all([second.closed, fourth.closed]);
    await until(() => watcher.watching === 0);
  });

  it('closes 1011 when the store fails, with the error logged', async () => {
    const job = await newJob(2);
    await job.finish();
    const watch = new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' });
    await watch.count(1);
    failing = new Error('the disk went away');
    const { code, reason } = await watch.closed;
    assert.equal(code, 1011);
    const body = JSON.parse(reason) as { type: string; error: string };
    assert.equal(body.type, 'error');
    const id = /Error ID: ([\w-]+)$/.exec(body.error)?.[1];
    assert.ok(id, body.error);
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0]?.details, { err: failing, errorId: id });
  });

  it('closes every watcher with 1001 on shutdown, and refuses upgrades after it', async () => {
    const job = await newJob(1);
    const watches = [1, 2, 3].map(() => new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' }));
    await Promise.all(watches.map((w) => w.count(1)));
    assert.equal(watcher.watching, 3);
    await watcher.close();
    for (const w of watches)
      assert.deepEqual(await w.closed, {
        code: 1001,
        reason: '{"type":"error","error":"Quire is shutting down."}',
      });
    assert.equal(watcher.watching, 0);
    const late = new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' });
    await assert.rejects(late.closed, /Unexpected server response: 503/);
  });

  it('stops watching a job that goes away (purged)', async () => {
    const job = await newJob(1, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const watch = new Watch(`${base}/v2/crawl/${job.id}`, { key: 'key-a' });
    await watch.count(1);
    // Reading the job slid its expiry a retention ahead; purge past it.
    await store.jobs.purgeJobs(new Date(Date.now() + limits.jobRetentionMs + 60_000).toISOString());
    assert.deepEqual(await watch.closed, { code: 1008, reason: '{"type":"error","error":"Job not found"}' });
  });
});
