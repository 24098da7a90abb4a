import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/errors.ts';
import { limits } from '../../src/limits.ts';
import { RedisTeamConcurrency } from '../../src/quota/redis-team-concurrency.ts';
import { InProcessTeamConcurrency, type TeamConcurrency } from '../../src/quota/team-concurrency.ts';
import { redisUrl } from '../helpers/server.ts';
import { queueFull } from '../helpers/teams.ts';

/**
 * A team's queue depth in both implementations driven directly, for what HTTP cannot show without
 * waiting on a clock: a request that leaves the line gives its place back at once, and in Redis a
 * place another process holds counts until its lease runs out (a process that died renews it no
 * more).
 */
describe('team queue depth: the concurrency implementations', () => {
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
