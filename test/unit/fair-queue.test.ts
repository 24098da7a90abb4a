import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/errors.ts';
import { ClusterFairness } from '../../src/pipeline/cluster-fairness.ts';
import { deadline, stopped } from '../../src/pipeline/deadline.ts';
import { FairQueue, QueueFullError, type WorkerSlot } from '../../src/pipeline/fair-queue.ts';
import { redisUrl } from '../helpers/server.ts';

/**
 * The fair queue alone, on a hand-driven clock: the README's rules for sharing the workers
 * ("Sharing the workers"), each shown by the order in which conversions get a worker. That the
 * server's real pool follows this order is test/e2e/fair-queue.test.ts's.
 */

/** Lets the promises settled so far run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

interface FakeClockQueue {
  queue: FairQueue;
  /** Asks for a worker for `team` (key `<team>-key` unless given); `granted` records who got one. */
  ask(team: string, options?: { key?: string; signal?: AbortSignal }): Promise<WorkerSlot>;
  /** Moves the clock by `ms` and runs the timers that came due. */
  advance(ms: number): Promise<void>;
  granted: string[];
}

/** A queue on a hand-driven clock, with the README's half-life of worker time: a minute. */
function queueOnFakeClock(slots: number, reserveMs: number, maxWaiting = 100): FakeClockQueue {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const queue = new FairQueue({
    slots,
    maxWaiting,
    usageHalfLifeMs: 60_000,
    reserveMs,
    now: () => now,
    later: (fn, ms) => {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
  });
  const granted: string[] = [];
  const ask: FakeClockQueue['ask'] = (team, options = {}) =>
    queue
      .acquire({ team, key: options.key ?? `${team}-key` }, options.signal ?? new AbortController().signal)
      .then((slot) => {
        granted.push(options.key ?? team);
        return slot;
      });
  const advance = async (ms: number) => {
    now += ms;
    for (const t of timers.filter((t) => t.at <= now)) {
      timers = timers.filter((x) => x !== t);
      t.fn();
    }
    await settle();
  };
  return { queue, ask, advance, granted };
}

describe('fair queue: the order of turns', () => {
  it('lets a lone team use every worker', async () => {
    const { ask, granted } = queueOnFakeClock(3, 5000);
    await Promise.all([ask('a'), ask('a'), ask('a')]);
    assert.deepEqual(granted, ['a', 'a', 'a']);
  });

  it('gives a freed worker to a team under its share before the team that holds the rest', async () => {
    const { queue, ask, granted } = queueOnFakeClock(2, 0);
    const [first] = await Promise.all([ask('a'), ask('a')]);
    // Team a asked first and has used no more worker time than b: only the share decides.
    void ask('a');
    void ask('b');
    await settle();
    assert.deepEqual(queue.stats(), { busy: 2, waiting: 2, teams: 2 });
    first!.release();
    await settle();
    assert.deepEqual(granted, ['a', 'a', 'b']);
    assert.deepEqual(queue.stats(), { busy: 2, waiting: 1, teams: 2 });
  });

  it('serves the team that used the least worker time lately first, then in arrival order', async () => {
    const { ask, advance, granted } = queueOnFakeClock(1, 0);
    const a = await ask('a');
    await advance(10_000);
    a.release();
    const b = await ask('b');
    await advance(4_000);
    b.release();
    const holder = await ask('h');
    // a asks before b, and c (no worker time at all) before d.
    const waiting = ['a', 'b', 'c', 'd'].map((team) => ask(team).then((slot) => slot.release()));
    await settle();
    holder.release();
    await Promise.all(waiting);
    assert.deepEqual(granted.slice(3), ['c', 'd', 'b', 'a']);
  });

  it('halves worker time every minute: an older, larger use counts for less', async () => {
    const { ask, advance, granted } = queueOnFakeClock(1, 0);
    const a = await ask('a');
    await advance(10_000);
    a.release();
    await advance(60_000);
    const b = await ask('b');
    await advance(6_000);
    b.release();
    // a's 10 s ended 66 s ago: about 4.7 s now, less than b's 6 s.
    const holder = await ask('h');
    const waiting = ['b', 'a'].map((team) => ask(team).then((slot) => slot.release()));
    await settle();
    holder.release();
    await Promise.all(waiting);
    assert.deepEqual(granted.slice(3), ['a', 'b']);
  });

  it('gives a team whose files take ten times as long a tenth of the turns', async () => {
    const { ask, advance } = queueOnFakeClock(1, 0);
    const jobMs: Record<string, number> = { slow: 10_000, quick: 1_000 };
    const turns: Record<string, number> = { slow: 0, quick: 0 };
    let running: { team: string; slot: WorkerSlot } | undefined;
    // Each team always has one conversion waiting: it asks again as soon as one starts.
    const keepAsking = (team: string) => {
      void ask(team).then((slot) => {
        running = { team, slot };
        turns[team]!++;
        keepAsking(team);
      });
    };
    keepAsking('slow');
    keepAsking('quick');
    await settle();
    // Ten minutes of both teams' files, back to back on one worker.
    for (let elapsed = 0; elapsed < 600_000; ) {
      const { team, slot } = running!;
      await advance(jobMs[team]!);
      elapsed += jobMs[team]!;
      slot.release();
      await settle();
    }
    assert.ok(
      turns.slow! > 0 && turns.quick! >= 9 * turns.slow! && turns.quick! <= 11 * turns.slow!,
      JSON.stringify(turns),
    );
  });

  it("takes a team's keys in turns, so one key's backlog does not starve another's", async () => {
    const { ask, granted } = queueOnFakeClock(1, 0);
    const holder = await ask('a', { key: 'k1' });
    const waiting = ['k1', 'k1', 'k2'].map((key) => ask('a', { key }).then((slot) => slot.release()));
    await settle();
    holder.release();
    await Promise.all(waiting);
    assert.deepEqual(granted, ['k1', 'k1', 'k2', 'k1']);
  });
});

describe('fair queue: the reserve for a team between two requests', () => {
  it('holds the last worker for a recently served team, then hands it on when the window ends', async () => {
    const { queue, ask, advance, granted } = queueOnFakeClock(2, 5000);
    (await ask('b')).release();
    await ask('a');
    const second = ask('a');
    await advance(0);
    assert.deepEqual(granted, ['b', 'a'], 'team a’s second conversion waits while b may come back');
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 1, teams: 1 });
    await advance(4999);
    assert.equal(granted.length, 2);
    await advance(1);
    await second;
    assert.deepEqual(granted, ['b', 'a', 'a'], 'team b stayed away: a takes the worker');
  });

  it('gives the held worker to the team it was held for', async () => {
    const { ask, advance, granted } = queueOnFakeClock(2, 5000);
    (await ask('b')).release();
    await ask('a');
    void ask('a');
    await advance(1000);
    await ask('b');
    assert.deepEqual(granted, ['b', 'a', 'b']);
  });

  it('holds at most all workers but one, however many teams were seen', async () => {
    const { ask, advance, granted } = queueOnFakeClock(3, 5000);
    for (const team of ['b', 'c', 'd', 'e']) (await ask(team)).release();
    await ask('a');
    void ask('a');
    void ask('a');
    await advance(0);
    assert.deepEqual(granted.slice(4), ['a'], 'two workers held for four idle teams');
  });

  it('holds nothing with the reserve off', async () => {
    const { ask, granted } = queueOnFakeClock(2, 0);
    (await ask('b')).release();
    await Promise.all([ask('a'), ask('a')]);
    assert.deepEqual(granted, ['b', 'a', 'a']);
  });
});

describe('fair queue: limits, aborts and releases', () => {
  it('refuses at once past its waiting room, and takes a waiter again once one has left', async () => {
    const { queue, ask } = queueOnFakeClock(1, 0, 2);
    const holder = await ask('a');
    const leave = new AbortController();
    const leaver = ask('b', { signal: leave.signal });
    const stays = ask('c');
    await assert.rejects(ask('d'), QueueFullError);
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 2, teams: 3 });
    leave.abort(new Error('client gone'));
    await assert.rejects(leaver, /client gone/);
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 1, teams: 2 });
    const next = ask('d');
    await settle();
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 2, teams: 3 });
    holder.release();
    (await stays).release();
    (await next).release();
    assert.deepEqual(queue.stats(), { busy: 0, waiting: 0, teams: 1 });
  });

  it('gives a waiter that left no worker, and the next in line gets it', async () => {
    const { ask, granted } = queueOnFakeClock(1, 0);
    const holder = await ask('a');
    const leave = new AbortController();
    const leaver = ask('b', { key: 'b1', signal: leave.signal });
    const stays = ask('b', { key: 'b2' });
    await settle();
    // A reason that is no Error still rejects with one.
    leave.abort('gone');
    await assert.rejects(leaver, { message: 'aborted' });
    holder.release();
    await stays;
    assert.deepEqual(granted, ['a', 'b2']);
  });

  it('refuses a request whose signal has already aborted, taking nothing', () => {
    const { queue } = queueOnFakeClock(1, 0);
    const gone = new AbortController();
    gone.abort(new Error('client gone'));
    assert.throws(() => queue.acquire({ team: 'a', key: 'k' }, gone.signal), /client gone/);
    assert.deepEqual(queue.stats(), { busy: 0, waiting: 0, teams: 1 });
  });

  it('frees a worker once however often its slot is released', async () => {
    const { queue, ask, granted } = queueOnFakeClock(1, 0);
    const holder = await ask('a');
    const next = ask('b');
    void ask('c');
    await settle();
    holder.release();
    holder.release();
    await next;
    await settle();
    assert.deepEqual(granted, ['a', 'b'], 'c still waits: the second release freed nothing');
    assert.deepEqual(queue.stats(), { busy: 1, waiting: 1, teams: 2 });
  });
});

/**
 * The cluster's fair order (README, Cluster mode, "Fairness across the cluster"): a job's BullMQ
 * priority, lower first, from its team's worker time lately (halving every minute by Redis's
 * clock) and its jobs already queued. Against the machine's Redis, under a key prefix of its own.
 */
describe('cluster fairness: BullMQ priorities from worker time kept in Redis', () => {
  const prefix = `quire-test-fair-${Math.random().toString(36).slice(2)}`;
  let redis: Redis;
  let fairness: ClusterFairness;
  before(() => {
    redis = new Redis(redisUrl);
    fairness = new ClusterFairness(redis, prefix);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });
  const ttl = 60_000;

  it("queues a team's flood behind another team's first file, and forgets jobs that left", async () => {
    const flood = [
      await fairness.enqueue('flood', 'f1', ttl),
      await fairness.enqueue('flood', 'f2', ttl),
      await fairness.enqueue('flood', 'f3', ttl),
    ];
    const newcomer = await fairness.enqueue('newcomer', 'n1', ttl);
    // Equal claims (no worker time, nothing queued) share a priority: BullMQ then serves them in order.
    assert.equal(newcomer, flood[0]);
    assert.ok(flood[0]! < flood[1]! && flood[1]! < flood[2]!, `${flood}`);
    for (const id of ['f1', 'f2', 'f3']) await fairness.leave('flood', id);
    assert.equal(await fairness.enqueue('flood', 'f4', ttl), newcomer);
  });

  it('puts a team that used worker time behind one that used none', async () => {
    await fairness.charge('busy', 5_000);
    const busy = await fairness.enqueue('busy', 'b1', ttl);
    const idle = await fairness.enqueue('idle', 'i1', ttl);
    assert.ok(idle < busy, `idle ${idle}, busy ${busy}`);
  });

  it('halves worker time every minute, by Redis’s clock', async () => {
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // 20 s of worker time a minute ago weighs as 10 s now.
    await redis.hset(`${prefix}:fair:usage:older`, { ms: 20_010, jobs: 1, at: now - 60_000 });
    await redis.hset(`${prefix}:fair:usage:newer`, { ms: 10_005, jobs: 1, at: now });
    await redis.hset(`${prefix}:fair:usage:more`, { ms: 12_000, jobs: 1, at: now });
    const older = await fairness.enqueue('older', 'o1', ttl);
    const newer = await fairness.enqueue('newer', 'n1', ttl);
    const more = await fairness.enqueue('more', 'm1', ttl);
    assert.equal(older, newer);
    assert.ok(newer < more, `newer ${newer}, more ${more}`);
  });
});

describe('deadline', () => {
  it("aborts with the contract's 408 once its time is up, on the test's clock", (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const clock = deadline(30_000, 'parse');
    t.mock.timers.tick(29_999);
    assert.equal(clock.signal.aborted, false);
    t.mock.timers.tick(1);
    assert.equal(clock.signal.aborted, true);
    const reason = stopped(clock);
    assert.ok(reason instanceof ApiError);
    assert.equal(reason.status, 408);
    assert.deepEqual(reason.body(), {
      success: false,
      code: 'SCRAPE_TIMEOUT',
      error: 'The parse did not finish within its timeout of 30000 ms.',
    });
    clock.done();
  });

  it('aborts when the client goes away, and answers the 408 nobody will hear', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const socket = new EventEmitter();
    const clock = deadline(30_000, 'scrape', socket);
    socket.emit('close');
    assert.equal(clock.signal.aborted, true);
    assert.equal((clock.signal.reason as Error).message, 'client gone');
    assert.match(stopped(clock).message, /The scrape did not finish within its timeout of 30000 ms\./);
    clock.done();
  });

  it('watches neither the time nor the client once done', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const socket = new EventEmitter();
    const clock = deadline(1_000, 'parse', socket);
    clock.done();
    assert.equal(socket.listenerCount('close'), 0);
    t.mock.timers.tick(2_000);
    socket.emit('close');
    assert.equal(clock.signal.aborted, false);
  });
});
