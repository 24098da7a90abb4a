import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { limits } from '../limits.ts';
import { untilAborted } from '../until-aborted.ts';
import {
  type SlotLease,
  slotLease,
  type TeamConcurrency,
  type TeamLimits,
  type TeamLoad,
  teamQueueFull,
} from './team-concurrency.ts';

/**
 * KEYS: the team's lease set, its waiting set. ARGV: lease id, the team's limit, lease lifetime,
 * its queue depth (-1: any number), 1 when the id already has a place in line. Leases and places
 * past their expiry (an API process that died holding them) are dropped first; then the lease is
 * taken if the team holds fewer than its limit, the id's place in line given up with it.
 * Otherwise the id takes (or keeps, renewed) a place in line, unless it has none and the line
 * is at the queue depth. Returns 1 (taken), 0 (in line) or -1 (the line is full). Redis's
 * clock, so that every machine judges expiry alike.
 */
const ACQUIRE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
local depth = tonumber(ARGV[4])
if ARGV[5] == '0' and depth >= 0 and redis.call('ZCARD', KEYS[2]) >= depth then return -1 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 0`;

/** KEYS: lease (or waiting) sets. ARGV: lease lifetime, then one id per key. Held leases and places live on. */
const RENEW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return 1`;

/** KEYS: the team's lease set, its waiting set. Both counted once their expired members are dropped. */
const IN_USE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}`;

interface Waiter {
  team: string;
  /** Tries for a slot; true once it has one. */
  attempt: () => Promise<boolean>;
  /** Gives back the slot `attempt` took. */
  undo: () => Promise<void>;
  /** Gives back the place in line. */
  leave: () => Promise<void>;
}

/**
 * How many parses each team runs at once across every API process of a cluster: each running
 * parse holds a lease in a Redis sorted set per team, renewed while its process lives and
 * dropped by the next acquire once it expires, so an API process that dies frees its team's
 * slots within limits.clusterSlotLeaseMs. Each waiting request holds a place in a second set
 * per team, counted against the team's queue depth and leased the same way, so a dead
 * process's places go as its slots do. A lease given back is announced on a channel, and the
 * team's waiters in every process try again (each process's in arrival order); they also try
 * every clusterSlotRetryMs, which is what frees them when a holder died without a word. Waiters
 * in different processes are not served in one global order.
 */
export class RedisTeamConcurrency implements TeamConcurrency {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly limitsOf: (team: string) => Promise<TeamLimits>;
  /** Leases this process holds: lease id → team. */
  private readonly held = new Map<string, string>();
  /** Places in line this process's waiters hold: lease id → team. */
  private readonly queued = new Map<string, string>();
  private readonly waiters: Waiter[] = [];
  private readonly renewal: NodeJS.Timeout;
  private readonly retry: NodeJS.Timeout;
  /** Wakes run one after another, so that no waiter tries twice at once and takes two slots. */
  private waking = Promise.resolve();

  private constructor(redis: Redis, prefix: string, limitsOf: (team: string) => Promise<TeamLimits>) {
    this.redis = redis;
    this.subscriber = redis.duplicate();
    this.prefix = prefix;
    this.limitsOf = limitsOf;
    this.subscriber.on('message', (_channel: string, team: string) => this.wake(team));
    this.renewal = setInterval(() => void this.renew(), limits.clusterSlotLeaseMs / 3);
    this.renewal.unref();
    this.retry = setInterval(() => this.wake(undefined), limits.clusterSlotRetryMs);
    this.retry.unref();
  }

  static async open(
    redis: Redis,
    prefix: string,
    limitsOf: (team: string) => Promise<TeamLimits>,
  ): Promise<RedisTeamConcurrency> {
    const concurrency = new RedisTeamConcurrency(redis, prefix, limitsOf);
    await concurrency.subscriber.subscribe(concurrency.channel());
    return concurrency;
  }

  async acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease> {
    const started = performance.now();
    const id = randomUUID();
    let teamLimits: TeamLimits | undefined;
    /** 1: a slot taken; 0: a place in line taken or kept; -1: the line is full. */
    const take = async (inLine: boolean): Promise<number> => {
      teamLimits = await this.limitsOf(team);
      // A waiter that has left while its limits were read must not take a place again.
      if (inLine && signal.aborted) return 0;
      const got = await this.redis.eval(
        ACQUIRE,
        2,
        this.key(team),
        this.waitingKey(team),
        id,
        teamLimits.concurrency,
        limits.clusterSlotLeaseMs,
        teamLimits.queueDepth ?? -1,
        inLine ? 1 : 0,
      );
      if (got === 1) {
        this.held.set(id, team);
        this.queued.delete(id);
      } else if (got === 0 && !inLine) this.queued.set(id, team);
      return got as number;
    };
    const undo = async () => {
      this.held.delete(id);
      await this.redis.zrem(this.key(team), id);
    };
    const leave = async () => {
      this.queued.delete(id);
      await this.redis.zrem(this.waitingKey(team), id);
    };
    let limited = false;
    const first = take(false);
    const aborted = () => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    // A slot or place in line the first attempt takes after its request ended is given back.
    const got = await untilAborted(first, signal, aborted, async () => {
      const late = await first;
      if (late === 1) await undo();
      else if (late === 0) await leave();
    });
    if (got === -1) throw teamQueueFull(teamLimits!);
    if (got === 0) {
      limited = true;
      onWait?.();
      await this.wait({ team, attempt: async () => (await take(true)) === 1, undo, leave }, signal);
    }
    return slotLease(limited, started, () => {
      this.held.delete(id);
      void this.redis
        .zrem(this.key(team), id)
        .then(() => this.redis.publish(this.channel(), team))
        .catch(() => {});
    });
  }

  async inUse(team: string): Promise<TeamLoad> {
    const [running, waiting] = (await this.redis.eval(IN_USE, 2, this.key(team), this.waitingKey(team))) as [
      number,
      number,
    ];
    return { running, waiting };
  }

  private wait(waiter: Waiter, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(entry);
        if (at >= 0) this.waiters.splice(at, 1);
        // Should Redis not take it, the place expires with its lease.
        waiter.leave().catch(() => {});
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
      // Aborted since its place was taken, before this listener could hear it.
      if (signal.aborted) return onAbort();
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
    const entries = [
      ...[...this.held].map(([id, team]) => [id, this.key(team)] as const),
      ...[...this.queued].map(([id, team]) => [id, this.waitingKey(team)] as const),
    ];
    if (entries.length === 0) return;
    await this.redis
      .eval(
        RENEW,
        entries.length,
        ...entries.map(([, key]) => key),
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

  private waitingKey(team: string): string {
    return `${this.prefix}:slot-waiters:${team}`;
  }

  private channel(): string {
    return `${this.prefix}:slots-freed`;
  }
}
