import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/errors.ts';
import { Credits } from '../../src/quota/credits.ts';
import { SlidingWindowRateLimiter } from '../../src/quota/rate-limit.ts';
import { RedisTeamConcurrency } from '../../src/quota/redis-team-concurrency.ts';
import { Slots } from '../../src/quota/slots.ts';
import { InProcessTeamConcurrency, type TeamLimits } from '../../src/quota/team-concurrency.ts';
import { TeamSettingsCache } from '../../src/quota/team-settings.ts';
import { UploadBudget } from '../../src/quota/upload-budget.ts';
import { monthBounds, UsageLedger } from '../../src/quota/usage.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store, TeamSettings } from '../../src/store/store.ts';
import { redisUrl } from '../helpers/server.ts';

/**
 * The limits of README's "Teams, limits and credits" and Cluster mode, module by module, each
 * on a clock the test moves: rates per minute, team concurrency and its queue depth, upload
 * bytes in flight, credits, and how long a team's settings are cached. The HTTP answers they
 * give (429, 402, Retry-After) are the http and e2e layers'.
 */

/** Lets the promises settled so far run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A Redis key prefix of this test's own, and a connection removing its keys at the end. */
function useRedis(): { redis: () => Redis; prefix: string } {
  const prefix = `quire-test-quota-${Math.random().toString(36).slice(2)}`;
  let redis: Redis | undefined;
  before(() => {
    redis = new Redis(redisUrl);
  });
  after(async () => {
    const keys = await redis!.keys(`${prefix}:*`);
    if (keys.length > 0) await redis!.del(...keys);
    redis!.disconnect();
  });
  return { redis: () => redis!, prefix };
}

describe('rate limits: a sliding minute', () => {
  const shared = useRedis();
  // The same window whether the counters are in this process's memory or in a cluster's Redis.
  const counters = [
    { name: 'in memory', limiter: (perMinute: number) => new SlidingWindowRateLimiter(perMinute) },
    {
      name: 'in Redis',
      limiter: (perMinute: number) =>
        new SlidingWindowRateLimiter(perMinute, { redis: shared.redis(), prefix: shared.prefix }),
    },
  ];
  for (const { name, limiter } of counters) {
    describe(name, () => {
      it('slides: a new minute on the clock brings no fresh budget', async (t) => {
        // The limiter and its memory counters read Date.now() and set timers: both under the
        // test's clock. (Redis counts expire by Redis's clock, after this test.)
        t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: Date.UTC(2030, 0, 1, 12, 0, 59, 900) });
        const rate = limiter(3);
        const team = `slide-${Math.random()}`;
        for (let i = 0; i < 3; i++) assert.equal(await rate.consume(team), 0);
        t.mock.timers.tick(200); // 12:01:00.100, where fixed windows would start again
        // The three leave the window with their 10 s slot, at 12:01:50.
        assert.equal(await rate.consume(team), 50);
        t.mock.timers.tick(49_000);
        assert.equal(await rate.consume(team), 1);
        t.mock.timers.tick(900);
        // A full budget again: the refused requests were not counted.
        for (let i = 0; i < 3; i++) assert.equal(await rate.consume(team), 0);
        assert.equal(await rate.consume(team), 60);
      });

      it('holds a team and each of its keys to their own budgets, and another team to neither', async (t) => {
        t.mock.timers.enable({ apis: ['Date', 'setTimeout'], now: Date.UTC(2030, 0, 1, 12, 0, 0, 0) });
        const rate = limiter(0);
        const team = `keys-${Math.random()}`;
        const withKey = (id: string) => ({ perMinute: 5, key: { id, perMinute: 2 } });
        assert.equal(await rate.consume(team, withKey('k1')), 0);
        assert.equal(await rate.consume(team, withKey('k1')), 0);
        assert.equal(await rate.consume(team, withKey('k1')), 60, 'key k1 has spent its 2');
        assert.equal(await rate.consume(team, withKey('k2')), 0);
        assert.equal(await rate.consume(team, withKey('k2')), 0);
        assert.equal(await rate.consume(team, withKey('k3')), 0);
        // The team has spent its 5 (the refused request counted against neither budget).
        assert.equal(await rate.consume(team, withKey('k4')), 60, 'the team has spent its 5');
        // A key named as a team is no team: "k1" the team has its whole budget.
        assert.equal(await rate.consume('k1', { perMinute: 1 }), 0);
        // 0: no limit, the server's default included.
        for (let i = 0; i < 10; i++) assert.equal(await rate.consume(`${team}-free`), 0);
        assert.equal(await rate.consume(team, { perMinute: 0, key: { id: 'k1', perMinute: 0 } }), 0);
      });
    });
  }
});

describe('slots: at most N at once, the rest in order', () => {
  it('hands a freed slot to the oldest waiter, once per release', async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const first = await slots.acquire();
    await slots.acquire();
    const waiters = ['c', 'd'].map((name) =>
      slots.acquire().then((release) => {
        order.push(name);
        return release;
      }),
    );
    await settle();
    assert.deepEqual(order, []);
    first();
    first();
    await settle();
    assert.deepEqual(order, ['c'], 'd still waits: the second release freed nothing');
    (await waiters[0]!)();
    (await waiters[1]!)();
    assert.deepEqual(order, ['c', 'd']);
  });

  it('lets a cancelled waiter leave the line, and refuses one cancelled before it asked', async () => {
    const slots = new Slots(1);
    const holder = await slots.acquire();
    const leave = new AbortController();
    const leaver = slots.acquire(leave.signal);
    const next = slots.acquire();
    leave.abort(new Error('deadline passed'));
    await assert.rejects(leaver, /deadline passed/);
    holder();
    (await next)();
    await assert.rejects(slots.acquire(leave.signal), /deadline passed/);
    // Nothing leaked: both slots' worth is free again.
    (await slots.acquire())();
  });
});

describe('team concurrency in one process', () => {
  const oneAtOnce = async (): Promise<TeamLimits> => ({ concurrency: 1, queueDepth: 1 });

  it('reports how long a request waited for its slot, on the clock it is given', async () => {
    let now = 1_000;
    const concurrency = new InProcessTeamConcurrency(oneAtOnce, () => now);
    const first = await concurrency.acquire('t', new AbortController().signal);
    assert.deepEqual([first.limited, first.waitedMs], [false, 0]);
    let inLine = false;
    const second = concurrency.acquire('t', new AbortController().signal, () => {
      inLine = true;
    });
    await settle();
    assert.equal(inLine, true);
    now += 2_500.4;
    first.release();
    const lease = await second;
    assert.deepEqual([lease.limited, lease.waitedMs], [true, 2_500]);
    lease.release();
    // Another team is not held to this one's limit.
    const other = await concurrency.acquire('u', new AbortController().signal);
    assert.equal(other.limited, false);
    other.release();
  });

  it("refuses past the team's queue depth with the contract's 429 and Retry-After", async () => {
    const concurrency = new InProcessTeamConcurrency(oneAtOnce);
    const running = await concurrency.acquire('t', new AbortController().signal);
    const waiting = concurrency.acquire('t', new AbortController().signal);
    const refusal = await concurrency.acquire('t', new AbortController().signal).catch((e: unknown) => e);
    assert.ok(refusal instanceof ApiError);
    assert.equal(refusal.status, 429);
    assert.match(String(refusal.body().error), /your team's queue is full/);
    assert.match(refusal.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    running.release();
    running.release();
    const lease = await waiting;
    // Released twice, the first lease freed one slot: the team is at its limit again.
    const third = concurrency.acquire('t', new AbortController().signal);
    let got = false;
    void third.then(() => {
      got = true;
    });
    await settle();
    assert.equal(got, false);
    lease.release();
    (await third).release();
  });
});

describe('team concurrency across a cluster, in Redis', () => {
  const shared = useRedis();
  const oneAtOnce = async (): Promise<TeamLimits> => ({ concurrency: 1, queueDepth: null });

  /**
   * `count` API processes of one cluster (each its own connection; one Redis, one prefix), their
   * lease renewals and retries on the test's clock: mocked before they open, so that no real
   * timer frees a waiter the test means to free otherwise.
   */
  async function apiProcesses(t: TestContext, count: number) {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const opened = await Promise.all(
      Array.from({ length: count }, async () => {
        const client = new Redis(redisUrl);
        return { client, api: await RedisTeamConcurrency.open(client, shared.prefix, oneAtOnce) };
      }),
    );
    t.after(() => {
      for (const { client, api } of opened) {
        api.close();
        client.disconnect();
      }
    });
    return opened;
  }

  /** Redis's own clock, in ms: leases expire by it. */
  async function redisNow(): Promise<number> {
    const [seconds, micros] = await shared.redis().time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  it("wakes another process's waiter as soon as a slot is given back", async (t) => {
    const [one, two] = await apiProcesses(t, 2);
    const holder = await one!.api.acquire('wake', new AbortController().signal);
    const inLine = Promise.withResolvers<void>();
    const waiter = two!.api.acquire('wake', new AbortController().signal, inLine.resolve);
    await inLine.promise;
    // The announcement wakes it: the retries' clock never moves in this test.
    holder.release();
    const lease = await waiter;
    assert.equal(lease.limited, true);
    lease.release();
  });

  it('renews the leases it holds every 10 s, to 30 s ahead', async (t) => {
    const [{ client, api }] = (await apiProcesses(t, 1)) as [{ client: Redis; api: RedisTeamConcurrency }];
    const lease = await api.acquire('renew', new AbortController().signal);
    const key = `${shared.prefix}:slots:renew`;
    const [id] = await client.zrange(key, '0', '-1');
    // Near its end, as if the last renewal were long ago.
    await client.zadd(key, 'XX', String((await redisNow()) + 1_000), id!);
    t.mock.timers.tick(10_000);
    // Commands on one connection run in order: this reads after the renewal's write.
    const ahead = Number(await client.zscore(key, id!)) - (await redisNow());
    assert.ok(ahead > 25_000 && ahead <= 30_000, `${ahead} ms ahead`);
    lease.release();
  });

  it('frees the slot of a process that stopped renewing it, 30 s on, without a word', async (t) => {
    const [{ client, api }] = (await apiProcesses(t, 1)) as [{ client: Redis; api: RedisTeamConcurrency }];
    const key = `${shared.prefix}:slots:dead`;
    // Another API process holds the team's slot and renews it.
    await client.zadd(key, (await redisNow()) + 30_000, 'elsewhere');
    const inLine = Promise.withResolvers<void>();
    const waiter = api.acquire('dead', new AbortController().signal, inLine.resolve);
    await inLine.promise;
    // It died: its lease ran out unrenewed, and nobody announced anything.
    await client.zadd(key, 'XX', String((await redisNow()) - 1), 'elsewhere');
    t.mock.timers.tick(30_000);
    const lease = await waiter;
    assert.equal(lease.limited, true);
    const members = await client.zrange(key, '0', '-1');
    assert.equal(members.length, 1);
    assert.notEqual(members[0], 'elsewhere');
    lease.release();
  });
});

describe('upload bytes in flight', () => {
  it('counts bytes as they arrive, refuses past the node or team cap, and gives them back', () => {
    const budget = new UploadBudget(100, 60);
    const a1 = budget.open('a');
    const a2 = budget.open('a');
    const b = budget.open('b');
    assert.equal(a1.take(40), undefined);
    assert.equal(a2.take(21), 'team', 'team a would hold 61 of its 60');
    assert.equal(a2.take(20), undefined, 'the refused bytes were not counted');
    assert.equal(b.take(41), 'node', 'the node would hold 101 of its 100');
    assert.equal(b.take(40), undefined);
    a1.releaseAll();
    a1.releaseAll();
    assert.equal(b.take(20), undefined);
    assert.equal(a2.take(21), 'node', 'a1 gave its 40 back once: the node holds 80 of its 100');
    a2.releaseAll();
    assert.equal(budget.open('a').take(40), undefined, 'a2 gave its 20 back');
  });
});

describe('credits and team settings', () => {
  let dir: string;
  let store: SqliteStore;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-quota-'));
    store = new SqliteStore(path.join(dir, 'quire.db'));
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const defaults = { concurrency: 2, ratePerMinute: 30 };
  const balance = async (team: string) => (await store.getTeam(team))?.credits;

  it('never refuses a team without a balance, writes no balance for it, and counts what it used', async () => {
    const credits = new Credits(store, new TeamSettingsCache(store, defaults));
    const hold = await credits.reserve({ team: 'free', keyId: 'k1' });
    assert.ok(hold);
    await hold.settle(7);
    await hold.release();
    assert.equal(await store.getTeam('free'), undefined);
    const usage = await store.readUsage('free');
    assert.deepEqual(
      usage.map(({ keyId, credits: used, tokens }) => ({ keyId, used, tokens })),
      [{ keyId: 'k1', used: 7, tokens: 0 }],
    );
  });

  it('reserves one credit, charges the cost on settling down to zero and never below, or gives it back', async () => {
    await store.updateTeam('metered', { credits: 3 });
    const credits = new Credits(store, new TeamSettingsCache(store, defaults));
    const account = { team: 'metered', keyId: 'k1' };
    const failed = await credits.reserve(account);
    assert.equal(await balance('metered'), 2);
    await failed!.release();
    await failed!.settle(1);
    assert.equal(await balance('metered'), 3, 'a failed request costs nothing, settled later or not');
    assert.deepEqual(await store.readUsage('metered'), [], 'nor is it counted as used');

    const pdf = await credits.reserve(account);
    // A PDF of 9 pages costs 10: the 2 left are taken, and the answer is still given.
    await pdf!.settle(10);
    assert.equal(await balance('metered'), 0);
    assert.equal(await credits.reserve(account), undefined, 'an empty balance pays for nothing');
    assert.equal((await store.readUsage('metered'))[0]?.credits, 10, 'usage counts what the work cost');
  });

  it('counts usage by key and calendar month (UTC), credits and tokens apart', async () => {
    let now = new Date('2026-01-31T23:59:59.000Z');
    const ledger = new UsageLedger(store, () => now);
    await ledger.add({ team: 'months', keyId: 'a' }, { credits: 2 });
    await ledger.add({ team: 'months', keyId: 'a' }, { tokens: 150 });
    await ledger.add({ team: 'months', keyId: 'b' }, { credits: 1, tokens: 0 });
    now = new Date('2026-02-01T00:00:00.000Z');
    await ledger.add({ team: 'months', keyId: 'a' }, { credits: 5 });
    await ledger.add({ team: 'months', keyId: 'a' }, { credits: 0, tokens: 0 });
    await ledger.add({ team: 'other', keyId: 'a' }, { credits: 9 });
    assert.deepEqual(await store.readUsage('months'), [
      { keyId: 'a', month: '2026-01', credits: 2, tokens: 150, lastAt: '2026-01-31T23:59:59.000Z' },
      { keyId: 'b', month: '2026-01', credits: 1, tokens: 0, lastAt: '2026-01-31T23:59:59.000Z' },
      { keyId: 'a', month: '2026-02', credits: 5, tokens: 0, lastAt: '2026-02-01T00:00:00.000Z' },
    ]);
    assert.deepEqual(monthBounds('2026-12'), {
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
  });

  it('reads a team’s settings again 5 seconds after they were read, not before', async () => {
    let now = 0;
    let reads = 0;
    const counting: Store = Object.create(store, {
      getTeam: {
        value: (team: string): Promise<TeamSettings | undefined> => {
          reads++;
          return store.getTeam(team);
        },
      },
    });
    const cache = new TeamSettingsCache(counting, defaults, () => now);
    const [first, same] = await Promise.all([cache.get('cached'), cache.get('cached')]);
    assert.equal(reads, 1, 'requests at once share one read');
    assert.deepEqual(first, {
      concurrency: 2,
      queueDepth: null,
      ratePerMinute: 30,
      keyRatePerMinute: 0,
      audit: true,
      zdr: 'allowed',
      metered: false,
    });
    assert.equal(same, first);
    await store.updateTeam('cached', { concurrency: 5, ratePerMinute: 0, zdr: 'forced', credits: 10 });
    now = 4_999;
    assert.equal((await cache.get('cached')).concurrency, 2);
    now = 5_000;
    assert.deepEqual(await cache.get('cached'), {
      concurrency: 5,
      queueDepth: null,
      ratePerMinute: 0,
      keyRatePerMinute: 0,
      audit: true,
      zdr: 'forced',
      metered: true,
    });
    assert.equal(reads, 2);
  });

  it('keeps no failed read: the next request reads again', async () => {
    let fail = true;
    const flaky: Store = Object.create(store, {
      getTeam: {
        value: (team: string): Promise<TeamSettings | undefined> =>
          fail ? Promise.reject(new Error('store unreachable')) : store.getTeam(team),
      },
    });
    const cache = new TeamSettingsCache(flaky, defaults, () => 0);
    await assert.rejects(cache.get('flaky'), /store unreachable/);
    fail = false;
    assert.equal((await cache.get('flaky')).concurrency, 2);
  });
});
