import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { z } from 'zod';
import { loadConfig } from '../../src/config.ts';
import type { JobKind } from '../../src/jobs/job-store.ts';
import { type WebhookSpec, webhookSchema } from '../../src/jobs/webhook-spec.ts';
import { retryDelay, type WebhookClock, WebhookSender } from '../../src/jobs/webhooks.ts';
import { limits } from '../../src/limits.ts';
import { validationError } from '../../src/options/validate.ts';
import type { ResolveAll } from '../../src/scrape/vetted-address.ts';
import { NetPolicy } from '../../src/sessions/net-policy.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

/**
 * Webhook delivery (src/jobs/webhooks.ts) end to end on one machine: a SQLite outbox, a real
 * receiver on 127.0.0.1 and a clock the test moves, so retries and timeouts come without waiting.
 * And the request's `webhook` field (src/jobs/webhook-spec.ts).
 */

/** Timers that fire only when the test moves the clock on. */
class ManualClock implements WebhookClock {
  time = Date.UTC(2030, 0, 1);
  private timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Move on `ms`, firing each timer due on the way at its own time, earliest first. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      next.fn();
    }
    this.time = target;
  }
}

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Resolves when the connection closes (the sender cut it, or the answer was sent). */
  closed: Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that keeps each request and answers as told (or never). */
class Receiver {
  readonly received: Received[] = [];
  /** The status for the n-th request (0-based), or 'hang' to never answer. */
  answer: (n: number) => number | 'hang' = () => 200;
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
      const n = this.received.length;
      this.received.push({
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        closed,
      });
      const status = this.answer(n);
      if (status !== 'hang') res.writeHead(status).end('ok');
      for (const w of this.waiters.splice(0)) w();
    });
  });
  private waiters: (() => void)[] = [];
  port = 0;

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(host = '127.0.0.1'): string {
    return `http://${host}:${this.port}/hooks/quire?token=t1`;
  }

  /** Resolves once `n` requests have come in. */
  async count(n: number): Promise<void> {
    while (this.received.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  bodies(): Record<string, unknown>[] {
    return this.received.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  }

  types(): string[] {
    return this.bodies().map((b) => `${b.type}#${(b.metadata as { n?: unknown }).n ?? ''}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port nothing listens on (connection refused), free for a receiver to take later. */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

interface Warning {
  details: Record<string, unknown>;
  message: string;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A store in a temp dir, a receiver, a clock and a sender (not started) allowing 127.0.0.1. */
async function setup(
  options: {
    secret?: string;
    allowed?: string[];
    resolveAll?: ResolveAll;
    receiverPort?: number | null;
  } = {},
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-webhooks-'));
  const store = new SqliteStore(path.join(dir, 'quire.db'));
  const receiver = new Receiver();
  if (options.receiverPort !== null) await receiver.listen(options.receiverPort ?? 0);
  const clock = new ManualClock();
  const warnings: Warning[] = [];
  const senders: WebhookSender[] = [];
  const sender = (owner?: string) => {
    const s = new WebhookSender(store.jobs, {
      secret: options.secret,
      policy: new NetPolicy(options.allowed ?? ['127.0.0.1'], 'a webhook'),
      resolveAll: options.resolveAll,
      log: {
        warn: (details, message) => warnings.push({ details: details as Record<string, unknown>, message }),
      },
      clock,
      owner,
    });
    senders.push(s);
    return s;
  };
  cleanups.push(async () => {
    for (const s of senders) await s.close();
    await receiver.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  /** A new job of `kind` in the store, with `webhook` (a URL to this receiver by default). */
  const job = async (kind: JobKind = 'crawl', webhook: unknown = receiver.url()) => {
    const id = randomUUID();
    await store.jobs.createJob({
      id,
      kind,
      team: 'team-a',
      keyId: 'key-1',
      url: kind === 'crawl' ? 'https://example.com/' : null,
      options: '{}',
      webhook: JSON.stringify(webhook),
      status: 'scraping',
      zeroDataRetention: false,
      createdAt: new Date(clock.now()).toISOString(),
      expiresAt: new Date(clock.now() + 48 * 3600_000).toISOString(),
      robots: null,
    });
    return { id, kind, webhook: webhookSchema.parse(webhook) as WebhookSpec };
  };
  // Removals from the outbox (delivered or given up), to wait for one while another delivery hangs.
  let removed = 0;
  const removedWaiters: (() => void)[] = [];
  const removeWebhook = store.jobs.removeWebhook.bind(store.jobs);
  store.jobs.removeWebhook = async (id) => {
    await removeWebhook(id);
    removed++;
    for (const w of removedWaiters.splice(0)) w();
  };
  const removals = async (n: number) => {
    while (removed < n) await new Promise<void>((resolve) => removedWaiters.push(resolve));
  };
  /** What the outbox still holds, due any time (claimed under a name of its own). */
  const outbox = () =>
    store.jobs.claimWebhooks('probe', '2100-01-01T00:00:00.000Z', '2100-01-02T00:00:00.000Z', 100);
  return { store, receiver, clock, warnings, sender, job, outbox, removals };
}

const empty = { success: true, data: '[]' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('webhook delivery', { timeout: 60_000 }, () => {
  for (const [kind, prefix] of [
    ['crawl', 'crawl'],
    ['batch', 'batch_scrape'],
  ] as const) {
    it(`sends a ${kind}'s events as upstream's bodies, byte for byte, its document spliced in as given`, async () => {
      const t = await setup();
      const job = await t.job(kind, {
        url: t.receiver.url(),
        metadata: { run: 'r-1', n: 7, ok: true, none: null },
      });
      const sender = t.sender();
      // Spacing a re-encoding would lose, and text that needs escaping.
      const document =
        '{"markdown": "# Hi\\n\\u00e9 \\"q\\"", "metadata":{"sourceURL":"https://a.example/","statusCode":200}}';
      await sender.emit(job, 'started', empty);
      await sender.emit(job, 'page', { success: true, data: `[${document}]` });
      await sender.emit(job, 'page', {
        success: false,
        data: '[{"metadata":{"sourceURL":"https://a.example/gone"}}]',
        error: 'Fetching failed: "404" <Not Found>',
      });
      await sender.emit(job, 'completed', empty);
      await sender.emit(job, 'failed', { success: false, data: '[]', error: 'no start' });
      sender.start();
      await t.receiver.count(5);
      await sender.idle();

      const metadata = '{"run":"r-1","n":7,"ok":true,"none":null}';
      const ids = t.receiver.bodies().map((b) => b.webhookId as string);
      for (const id of ids) assert.match(id, UUID);
      assert.equal(new Set(ids).size, 5);
      const head = (type: string, success = true) =>
        `{"success":${success},"type":"${prefix}.${type}","id":"${job.id}"`;
      assert.deepEqual(
        t.receiver.received.map((r) => r.body),
        [
          `${head('started')},"data":[],"metadata":${metadata},"webhookId":"${ids[0]}"}`,
          `${head('page')},"data":[${document}],"metadata":${metadata},"webhookId":"${ids[1]}"}`,
          `${head('page', false)},"data":[{"metadata":{"sourceURL":"https://a.example/gone"}}],"error":"Fetching failed: \\"404\\" <Not Found>","metadata":${metadata},"webhookId":"${ids[2]}"}`,
          `${head('completed')},"data":[],"metadata":${metadata},"webhookId":"${ids[3]}"}`,
          `${head('failed', false)},"data":[],"error":"no start","metadata":${metadata},"webhookId":"${ids[4]}"}`,
        ],
      );
      for (const r of t.receiver.received) {
        assert.equal(r.url, '/hooks/quire?token=t1');
        assert.equal(r.headers['content-type'], 'application/json');
        assert.match(r.headers['user-agent'] ?? '', /Quire/);
        assert.equal(r.headers['x-firecrawl-signature'], undefined);
      }
      assert.deepEqual(await t.outbox(), []);
      assert.deepEqual(t.warnings, []);
    });
  }

  it('signs the exact body with the secret, sends the headers asked for and echoes empty metadata', async () => {
    const secret = 'webhook-secret-for-the-test';
    const t = await setup({ secret });
    const job = await t.job('crawl', {
      url: t.receiver.url(),
      headers: { Authorization: 'Bearer receiver-token', 'X-Team': 'blue', 'User-Agent': 'their-agent' },
    });
    const sender = t.sender();
    await sender.emit(job, 'started', empty);
    await sender.emit(job, 'page', { success: true, data: '[{"markdown":"é ✓"}]' });
    sender.start();
    await t.receiver.count(2);
    for (const r of t.receiver.received) {
      const expected = createHmac('sha256', secret).update(Buffer.from(r.body, 'utf8')).digest('hex');
      assert.equal(r.headers['x-firecrawl-signature'], `sha256=${expected}`);
      assert.notEqual(
        r.headers['x-firecrawl-signature'],
        `sha256=${createHmac('sha256', 'another-secret').update(r.body).digest('hex')}`,
      );
      assert.equal(r.headers.authorization, 'Bearer receiver-token');
      assert.equal(r.headers['x-team'], 'blue');
      assert.equal(r.headers['user-agent'], 'their-agent');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.body));
      assert.match(r.body, /,"metadata":\{\},"webhookId":"/);
    }
  });

  it('sends only the events asked for, full names included', async () => {
    const t = await setup();
    const pageOnly = await t.job('crawl', {
      url: t.receiver.url(),
      events: ['crawl.page'],
      metadata: { n: 'p' },
    });
    const ends = await t.job('batch', {
      url: t.receiver.url(),
      events: ['completed', 'batch_scrape.failed'],
      metadata: { n: 'e' },
    });
    const sender = t.sender();
    for (const job of [pageOnly, ends]) {
      await sender.emit(job, 'started', empty);
      await sender.emit(job, 'page', { success: true, data: '[{}]' });
      await sender.emit(job, 'completed', empty);
      await sender.emit(job, 'failed', { success: false, data: '[]', error: 'x' });
    }
    // Nothing else was even queued (a look that claims them until now, so they are free again).
    const now = new Date(t.clock.now()).toISOString();
    assert.deepEqual(
      (await t.store.jobs.claimWebhooks('peek', now, now, 10)).map((d) => JSON.parse(d.body).type).sort(),
      ['batch_scrape.completed', 'crawl.page'],
    );
    const fresh = t.sender();
    t.clock.advance(2 * 3600_000);
    fresh.start();
    await t.receiver.count(3);
    await fresh.idle();
    assert.deepEqual(t.receiver.types().sort(), [
      'batch_scrape.completed#e',
      'batch_scrape.failed#e',
      'crawl.page#p',
    ]);
  });

  it("keeps a job's events in order while its receiver fails, and lets other jobs' events past", async () => {
    const t = await setup();
    const a = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 'a' } });
    const b = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 'b' } });
    t.receiver.answer = (n) => (n === 0 ? 500 : 200);
    const sender = t.sender();
    await sender.emit(a, 'started', empty);
    await sender.emit(a, 'page', { success: true, data: '[{}]' });
    await sender.emit(a, 'completed', empty);
    sender.start();
    await t.receiver.count(1);
    await sender.idle();
    // a's page and completed wait behind its started, which failed.
    assert.equal(t.receiver.received.length, 1);
    assert.equal(t.warnings.length, 1);
    assert.deepEqual(t.warnings[0]!.details, {
      job: a.id,
      webhookId: t.receiver.bodies()[0]!.webhookId,
      receiver: `http://127.0.0.1:${t.receiver.port}`,
      attempt: 1,
      reason: 'the receiver answered 500',
      nextAt: new Date(t.clock.now() + 10_000).toISOString(),
    });
    // Another job's events are not held up.
    await sender.emit(b, 'started', empty);
    await t.receiver.count(2);
    await sender.idle();
    assert.deepEqual(t.receiver.types(), ['crawl.started#a', 'crawl.started#b']);

    t.clock.advance(9_999);
    await sender.idle();
    assert.equal(t.receiver.received.length, 2);
    t.clock.advance(1);
    await t.receiver.count(5);
    await sender.idle();
    assert.deepEqual(t.receiver.types(), [
      'crawl.started#a',
      'crawl.started#b',
      'crawl.started#a',
      'crawl.page#a',
      'crawl.completed#a',
    ]);
    // The retry is the same event.
    assert.equal(t.receiver.received[2]!.body, t.receiver.received[0]!.body);
    assert.deepEqual(await t.outbox(), []);
    assert.equal(t.warnings.length, 1);
  });

  it('retries on the back-off schedule, then gives up after a day and goes on to the next event', async () => {
    const t = await setup();
    const job = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 1 } });
    t.receiver.answer = (n) => (n < 28 ? 503 : 200);
    const sender = t.sender();
    await sender.emit(job, 'started', empty);
    await sender.emit(job, 'completed', empty);
    sender.start();
    const start = t.clock.now();
    const waits: number[] = [];
    for (let attempt = 1; ; attempt++) {
      await t.receiver.count(attempt);
      await sender.idle();
      const warning = t.warnings[attempt - 1]!;
      assert.equal(warning.details.attempt, attempt);
      if (warning.details.nextAt === undefined) break;
      const wait = Date.parse(warning.details.nextAt as string) - t.clock.now();
      waits.push(wait);
      t.clock.advance(wait);
    }
    const minute = 60_000;
    const hour = 60 * minute;
    assert.deepEqual(waits, [10_000, minute, 5 * minute, 15 * minute, ...Array(23).fill(hour)]);
    assert.ok(t.clock.now() - start <= limits.webhookRetryWindowMs);
    assert.equal(t.warnings.length, 28);
    assert.equal(t.warnings[27]!.message, 'webhooks: delivery failed; event given up after 28 attempts');
    // The next event goes at once, and is delivered.
    await t.receiver.count(29);
    await sender.idle();
    assert.deepEqual(t.receiver.types().slice(-2), ['crawl.started#1', 'crawl.completed#1']);
    assert.deepEqual(await t.outbox(), []);
    t.clock.advance(2 * hour);
    await sender.idle();
    assert.equal(t.receiver.received.length, 29);
    // The schedule itself: a delay after each failed attempt, none after the 28th.
    assert.equal(retryDelay(1), 10_000);
    assert.equal(retryDelay(27), hour);
    assert.equal(retryDelay(28), undefined);
  });

  it('loses nothing to a receiver that is down, and delivers once it is up', async () => {
    const port = await freePort();
    const t = await setup({ receiverPort: null });
    t.receiver.port = port;
    const job = await t.job('batch', { url: t.receiver.url(), metadata: { n: 'x' } });
    const sender = t.sender();
    await sender.emit(job, 'started', empty);
    await sender.emit(job, 'page', { success: true, data: '[{"markdown":"a"}]' });
    await sender.emit(job, 'completed', empty);
    sender.start();
    await sender.idle();
    assert.equal(t.warnings.length, 1);
    assert.match(String(t.warnings[0]!.details.reason), /ECONNREFUSED/);
    await t.receiver.listen(port);
    t.clock.advance(10_000);
    await t.receiver.count(3);
    await sender.idle();
    assert.deepEqual(t.receiver.types(), [
      'batch_scrape.started#x',
      'batch_scrape.page#x',
      'batch_scrape.completed#x',
    ]);
    assert.equal(t.warnings.length, 1);
  });

  it('cuts a receiver that does not answer at the timeout, and tries again later', async () => {
    const t = await setup();
    const job = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 'h' } });
    const other = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 'o' } });
    t.receiver.answer = (n) => (n === 0 ? 'hang' : 200);
    const sender = t.sender();
    await sender.emit(job, 'started', empty);
    sender.start();
    await t.receiver.count(1);
    // Held up, it holds up no other job.
    await sender.emit(other, 'started', empty);
    await t.removals(1);
    assert.equal(t.receiver.received.length, 2);
    assert.equal(t.warnings.length, 0);
    t.clock.advance(limits.webhookTimeoutMs);
    await t.receiver.received[0]!.closed;
    await sender.idle();
    assert.equal(t.warnings.length, 1);
    assert.equal(t.warnings[0]!.details.reason, 'no answer within 10 s');
    assert.equal(t.warnings[0]!.details.attempt, 1);
    t.clock.advance(10_000);
    await t.receiver.count(3);
    await sender.idle();
    assert.deepEqual(t.receiver.types(), ['crawl.started#h', 'crawl.started#o', 'crawl.started#h']);
    assert.deepEqual(await t.outbox(), []);
  });

  it('refuses private receivers unless allowed, and connects to the address it vetted', async () => {
    const resolveAll: ResolveAll = async (host) =>
      host === 'inside.test' ? [{ address: '10.1.2.3', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const t = await setup({ allowed: ['hooks.test'], resolveAll });
    const literal = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 1 } });
    const named = await t.job('crawl', { url: t.receiver.url('inside.test'), metadata: { n: 2 } });
    const allowed = await t.job('crawl', { url: t.receiver.url('hooks.test'), metadata: { n: 3 } });
    const sender = t.sender();
    for (const job of [literal, named]) {
      await sender.emit(job, 'started', empty);
      await sender.emit(job, 'completed', empty);
    }
    sender.start();
    await sender.idle();
    assert.equal(t.receiver.received.length, 0);
    // Each event dropped at once (it could never succeed), the next one tried.
    assert.deepEqual(
      t.warnings.map((w) => [w.message, w.details.attempt]),
      Array(4).fill(['webhooks: receiver refused; event dropped', 1]),
    );
    assert.match(
      String(t.warnings[0]!.details.reason),
      /127\.0\.0\.1 is a private, loopback or link-local address/,
    );
    assert.match(String(t.warnings.at(-1)!.details.reason), /inside\.test resolves to 10\.1\.2\.3/);
    assert.deepEqual(await t.outbox(), []);

    // hooks.test exists only in the injected resolver: the connection goes to the address it gave.
    await sender.emit(allowed, 'started', empty);
    await t.receiver.count(1);
    await sender.idle();
    assert.equal(t.receiver.received[0]!.headers.host, `hooks.test:${t.receiver.port}`);
    assert.equal(t.warnings.length, 4);
  });

  it('keeps what was emitted in the store: another sender delivers it', async () => {
    const t = await setup();
    const job = await t.job('crawl', { url: t.receiver.url(), metadata: { n: 'k' } });
    const first = t.sender('first');
    await first.emit(job, 'started', empty);
    await first.emit(job, 'page', { success: true, data: '[{"markdown":"kept"}]' });
    // `first` never ran its loop (its process died): a new one finds the events.
    const second = t.sender('second');
    second.start();
    await t.receiver.count(2);
    await second.idle();
    assert.deepEqual(t.receiver.types(), ['crawl.started#k', 'crawl.page#k']);
    assert.match(t.receiver.received[1]!.body, /"data":\[\{"markdown":"kept"\}\]/);
  });

  it('delivers each event once when two senders share the store', async () => {
    const t = await setup();
    const jobs = [];
    for (let j = 0; j < 5; j++)
      jobs.push(await t.job('crawl', { url: t.receiver.url(), metadata: { n: j } }));
    const [x, y] = [t.sender('x'), t.sender('y')];
    x.start();
    y.start();
    for (const job of jobs) {
      await x.emit(job, 'started', empty);
      await y.emit(job, 'page', { success: true, data: '[{}]' });
      await x.emit(job, 'completed', empty);
    }
    await t.receiver.count(15);
    await Promise.all([x.idle(), y.idle()]);
    t.clock.advance(limits.webhookLeaseMs * 2);
    await Promise.all([x.idle(), y.idle()]);
    const ids = t.receiver.bodies().map((b) => b.webhookId);
    assert.equal(ids.length, 15);
    assert.equal(new Set(ids).size, 15);
    for (let j = 0; j < 5; j++)
      assert.deepEqual(
        t.receiver.types().filter((type) => type.endsWith(`#${j}`)),
        [`crawl.started#${j}`, `crawl.page#${j}`, `crawl.completed#${j}`],
      );
  });

  it('refuses a data that is not a JSON array, without queueing it', async () => {
    const t = await setup();
    const job = await t.job();
    const sender = t.sender();
    await assert.rejects(sender.emit(job, 'page', { success: true, data: '{"markdown":"x"}' }), TypeError);
    assert.deepEqual(await t.outbox(), []);
  });
});

describe('the webhook field', () => {
  const body = z.strictObject({ webhook: webhookSchema.optional() });
  /** The 400's message a crawl request would get, as Quire words it. */
  const refusal = (webhook: unknown): string => {
    const parsed = body.safeParse({ webhook });
    assert.equal(parsed.success, false, `${JSON.stringify(webhook)} was accepted`);
    return validationError('body', parsed.error!, { webhook }).message;
  };
  const all = ['started', 'page', 'completed', 'failed'];

  it('takes a URL string as {url}, and fills in the defaults', () => {
    assert.deepEqual(webhookSchema.parse('https://hooks.example/a?b=c'), {
      url: 'https://hooks.example/a?b=c',
      headers: {},
      metadata: {},
      events: all,
    });
    assert.deepEqual(webhookSchema.parse({ url: 'http://hooks.example/', events: [] }).events, all);
    assert.equal(body.parse({}).webhook, undefined);
  });

  it('reads events by the part after the dot, in a fixed order, once each', () => {
    assert.deepEqual(
      webhookSchema.parse({
        url: 'https://h.example/',
        events: ['crawl.completed', 'page', 'batch_scrape.page'],
      }).events,
      ['page', 'completed'],
    );
    assert.deepEqual(
      webhookSchema.parse({ url: 'https://h.example/', events: ['failed', 'started'] }).events,
      ['started', 'failed'],
    );
  });

  it('keeps headers and metadata of JSON scalars', () => {
    const spec = webhookSchema.parse({
      url: 'https://h.example/',
      headers: { 'X-Key': 'v' },
      metadata: { s: 'x', n: 1.5, b: false, z: null },
    });
    assert.deepEqual(spec.headers, { 'X-Key': 'v' });
    assert.deepEqual(spec.metadata, { s: 'x', n: 1.5, b: false, z: null });
  });

  it("refuses a signature header with upstream's message, whatever its case", () => {
    for (const name of ['x-firecrawl-signature', 'X-Firecrawl-Signature']) {
      const parsed = webhookSchema.safeParse({ url: 'https://h.example/', headers: { [name]: 'sha256=00' } });
      assert.equal(parsed.success, false);
      assert.deepEqual(
        parsed.error!.issues.map((i) => i.message),
        ['The following headers are not allowed: x-firecrawl-signature'],
      );
    }
    assert.match(
      refusal({ url: 'https://h.example/', headers: { 'X-Quire-Signature': 'x' } }),
      /The following headers are not allowed: x-quire-signature$/,
    );
    assert.match(
      refusal({ url: 'https://h.example/', headers: { 'X-Firecrawl-Signature': 'x' } }),
      /^body\.webhook\.headers The following headers are not allowed: x-firecrawl-signature$/,
    );
  });

  it('refuses bad URLs, unknown keys, bad events, headers and metadata, naming the field', () => {
    for (const url of ['not a url', 'ftp://h.example/file', 'hooks.example/no-scheme', 'https://'])
      assert.equal(refusal(url), 'body.webhook.url must be an http or https URL');
    assert.equal(refusal({}), 'body.webhook.url is required');
    assert.equal(refusal(42), 'body.webhook must be a URL or an object with a "url"');
    assert.match(
      refusal({ url: 'https://h.example/', secret: 'x' }),
      /^body\.webhook has unrecognized key "secret"/,
    );
    for (const event of ['crawl.nope', 'extract.completed', 'Page'])
      assert.match(
        refusal({ url: 'https://h.example/', events: [event] }),
        /^body\.webhook\.events\[0\] must be one of started, page, completed, failed/,
      );
    assert.equal(
      refusal({ url: 'https://h.example/', events: 'page' }),
      'body.webhook.events must be an array of event names',
    );
    assert.match(
      refusal({ url: 'https://h.example/', headers: { 'Content-Length': '5' } }),
      /^body\.webhook\.headers\.Content-Length is refused: Content-Length is set by Quire/,
    );
    assert.match(
      refusal({ url: 'https://h.example/', headers: { 'X-N': 1 } }),
      /^body\.webhook\.headers\.X-N must be a string/,
    );
    assert.match(
      refusal({ url: 'https://h.example/', metadata: { nested: { a: 1 } } }),
      /^body\.webhook\.metadata\.nested must be a string, number, boolean or null/,
    );
    assert.match(
      refusal({ url: 'https://h.example/', metadata: { big: 'x'.repeat(limits.webhookMetadataBytes) } }),
      /^body\.webhook\.metadata may take at most 16384 bytes as JSON/,
    );
  });
});

describe('the webhook secret setting', () => {
  it("is QUIRE_WEBHOOK_SECRET, else upstream's SELF_HOSTED_WEBHOOK_HMAC_SECRET, else none", () => {
    assert.equal(loadConfig({}).QUIRE_WEBHOOK_SECRET, '');
    assert.equal(
      loadConfig({ SELF_HOSTED_WEBHOOK_HMAC_SECRET: 'upstream' }).QUIRE_WEBHOOK_SECRET,
      'upstream',
    );
    assert.equal(
      loadConfig({ QUIRE_WEBHOOK_SECRET: 'quire', SELF_HOSTED_WEBHOOK_HMAC_SECRET: 'upstream' })
        .QUIRE_WEBHOOK_SECRET,
      'quire',
    );
  });
});
