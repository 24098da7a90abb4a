import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { limits } from '../limits.ts';
import { untilAborted } from '../until-aborted.ts';
import { type SlotLease, slotLease, type TeamConcurrency } from './team-concurrency.ts';

/**
 * KEYS: the team's lease set. ARGV: lease id, the team's limit, lease lifetime. Leases past their
 * expiry (an API process that died holding them) are dropped first; then the lease is taken if
 * the team holds fewer than its limit. Redis's clock, so that every machine judges expiry alike.
 */
const ACQUIRE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** KEYS: lease sets. ARGV: lease lifetime, then one lease id per key. Held leases live on. */
const RENEW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 1`;

interface Waiter {
  team: string;
  /** Tries for a slot; true once it has one. */
  attempt: () => Promise<boolean>;
  /** Gives back the slot `attempt` took. */
  undo: () => Promise<void>;
}

/**
 * How many parses each team runs at once across every API process of a cluster: each running
 * parse holds a lease in a Redis sorted set per team, renewed while its process lives and
 * dropped by the next acquire once it expires, so an API process that dies frees its team's
 * slots within limits.clusterSlotLeaseMs. A lease given back is announced on a channel, and the
 * team's waiters in every process try again (each process's in arrival order); they also try
 * every clusterSlotRetryMs, which is what frees them when a holder died without a word. Waiters
 * in different processes are not served in one global order.
 */
export class RedisTeamConcurrency implements TeamConcurrency {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly limitOf: (team: string) => Promise<number>;
  /** Leases this process holds: lease id → team. */
  private readonly held = new Map<string, string>();
  private readonly waiters: Waiter[] = [];
  private readonly renewal: NodeJS.Timeout;
  private readonly retry: NodeJS.Timeout;
  /** Wakes run one after another, so that no waiter tries twice at once and takes two slots. */
  private waking = Promise.resolve();

  private constructor(redis: Redis, prefix: string, limitOf: (team: string) => Promise<number>) {
    this.redis = redis;
    this.subscriber = redis.duplicate();
    this.prefix = prefix;
    this.limitOf = limitOf;
    this.subscriber.on('message', (_channel: string, team: string) => this.wake(team));
    this.renewal = setInterval(() => void this.renew(), limits.clusterSlotLeaseMs / 3);
    this.renewal.unref();
    this.retry = setInterval(() => this.wake(undefined), limits.clusterSlotRetryMs);
    this.retry.unref();
  }

  static async open(
    redis: Redis,
    prefix: string,
    limitOf: (team: string) => Promise<number>,
  ): Promise<RedisTeamConcurrency> {
    const concurrency = new RedisTeamConcurrency(redis, prefix, limitOf);
    await concurrency.subscriber.subscribe(concurrency.channel());
    return concurrency;
  }

  async acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease> {
    const started = performance.now();
    const id = randomUUID();
    const attempt = async () => {
      const got = await this.redis.eval(
        ACQUIRE,
        1,
        this.key(team),
        id,
        await this.limitOf(team),
        limits.clusterSlotLeaseMs,
      );
      if (got === 1) this.held.set(id, team);
      return got === 1;
    };
    const undo = async () => {
      this.held.delete(id);
      await this.redis.zrem(this.key(team), id);
    };
    let limited = false;
    const first = attempt();
    const aborted = () => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    // A slot the first attempt takes after its request ended is given back.
    if (!(await untilAborted(first, signal, aborted, async () => (await first) && undo()))) {
      limited = true;
      onWait?.();
      await this.wait({ team, attempt, undo }, signal);
    }
    return slotLease(limited, started, () => {
      this.held.delete(id);
      void this.redis
        .zrem(this.key(team), id)
        .then(() => this.redis.publish(this.channel(), team))
        .catch(() => {});
    });
  }

  private wait(waiter: Waiter, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(entry);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const entry: Waiter = {
        ...waiter,
        attempt: async () => {
          // A waiter that has left must not take a slot nobody would give back.
          if (signal.aborted || !(await waiter.attempt())) return false;
          if (signal.aborted) {
            await waiter.undo();
            return false;
          }
          signal.removeEventListener('abort', onAbort);
          resolve();
          return true;
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(entry);
    });
  }

  /** Lets the waiters of `team` (of every team, when undefined) try again, oldest first. */
  private wake(team: string | undefined): void {
    if (this.waiters.length === 0) return;
    this.waking = this.waking.then(() => this.wakeNow(team));
  }

  private async wakeNow(team: string | undefined): Promise<void> {
    const tried = new Set<string>();
    for (const waiter of [...this.waiters]) {
      if ((team !== undefined && waiter.team !== team) || tried.has(waiter.team)) continue;
      const got = await waiter.attempt().catch(() => false);
      if (got) this.waiters.splice(this.waiters.indexOf(waiter), 1);
      // The team is full again: its younger waiters would only find it so.
      else tried.add(waiter.team);
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const entries = [...this.held];
    await this.redis
      .eval(
        RENEW,
        entries.length,
        ...entries.map(([, team]) => this.key(team)),
        limits.clusterSlotLeaseMs,
        ...entries.map(([id]) => id),
      )
      .catch(() => {});
  }

  close(): void {
    clearInterval(this.renewal);
    clearInterval(this.retry);
    this.subscriber.disconnect();
  }

  private key(team: string): string {
    return `${this.prefix}:slots:${team}`;
  }

  private channel(): string {
    return `${this.prefix}:slots-freed`;
  }
}
