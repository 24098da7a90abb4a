import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

/** A team's budgets per minute (0: no limit), and optionally one for the key the request came with. */
export interface RateLimits {
  perMinute: number;
  key?: { id: string; perMinute: number };
}

/** Requests per minute per team and per key; a spent budget answers 429 with Retry-After. */
export interface RateLimiter {
  /**
   * Admits one request against the team's budget and its key's (both or neither count it) and
   * returns 0, or, when either is spent, the seconds to wait. Without `limits`, the limiter's own.
   */
  consume(team: string, limits?: RateLimits): Promise<number>;
}

const windowMs = 60_000;
/**
 * The minute is counted in slots of 10 s: any 50 s hold at most the limit (fixed windows let
 * twice the limit through around their edge), at the cost of reading six counters a request.
 */
const slotMs = 10_000;
const slotsPerWindow = windowMs / slotMs;

/**
 * A sliding one-minute window over per-slot counters. rate-limiter-flexible's limiters are fixed
 * windows, so they serve only as the atomic counter store: RateLimiterMemory on one node; a
 * cluster swaps in RateLimiterRedis with the same options (and a RateLimiterMemory as its
 * insuranceLimiter), and the counting below stays as it is.
 */
export class SlidingWindowRateLimiter implements RateLimiter {
  private readonly perMinute: number;
  private readonly counters: RateLimiterAbstract;

  /**
   * `perMinute`: the budget of a team that consume() is given no limits for. `shared`: the
   * cluster's Redis, where every API process counts; while it cannot be reached, each process
   * counts in its own memory instead (the insurance limiter), so requests are limited per process
   * rather than refused.
   */
  constructor(perMinute: number, shared?: { redis: Redis; prefix: string }) {
    this.perMinute = perMinute;
    const options = {
      keyPrefix: 'quire-rate',
      // Required, but never judged by: penalty(), reward() and get() only count.
      points: perMinute,
      // A slot must outlive the window it counts in; its counter starts at its first request.
      duration: windowMs / 1000,
    };
    this.counters = shared
      ? new RateLimiterRedis({
          ...options,
          keyPrefix: `${shared.prefix}:rate`,
          storeClient: shared.redis,
          // Not ready (reconnecting): the insurance limiter counts at once, rather than the
          // request waiting for Redis.
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
  }

  async consume(team: string, limits: RateLimits = { perMinute: this.perMinute }): Promise<number> {
    const now = Date.now();
    const current = Math.floor(now / slotMs);
    // Oldest first.
    const slots = Array.from({ length: slotsPerWindow }, (_, i) => current - slotsPerWindow + 1 + i);
    // The slot number leads the counter's name and has no ':', so no team or key name can
    // collide; "t" and "k" keep a team and a key of the same name apart.
    const budgets = [{ name: `t:${team}`, perMinute: limits.perMinute }];
    if (limits.key) budgets.push({ name: `k:${limits.key.id}`, perMinute: limits.key.perMinute });
    const counted = await Promise.all(
      budgets
        .filter((b) => b.perMinute > 0)
        .map(async (b) => ({ ...b, counts: await this.count(slots, b.name) })),
    );
    const refused = counted.filter((b) => sum(b.counts) > b.perMinute);
    if (refused.length === 0) return 0;

    // Refused requests count against no budget, so a client that keeps retrying is let in on time.
    await Promise.all(counted.map((b) => this.counters.reward(`${current}:${b.name}`)));
    return Math.max(
      ...refused.map((b) => {
        b.counts[b.counts.length - 1]!--;
        let inWindow = sum(b.counts);
        // Wait until enough of the oldest slots have left the window for one more request.
        let leavesAt = now;
        for (let i = 0; inWindow + 1 > b.perMinute; i++) {
          inWindow -= b.counts[i]!;
          leavesAt = (slots[i]! + slotsPerWindow) * slotMs;
        }
        return Math.max(1, Math.ceil((leavesAt - now) / 1000));
      }),
    );
  }

  /**
   * The requests in each slot of the window, this one counted in the last. Count first, then
   * judge: each request's count includes every request counted before it, so concurrent ones
   * cannot all slip in. penalty() adds without judging (consume() would judge this slot alone).
   */
  private async count(slots: number[], name: string): Promise<number[]> {
    const [older, added] = await Promise.all([
      Promise.all(slots.slice(0, -1).map((slot) => this.counters.get(`${slot}:${name}`))),
      this.counters.penalty(`${slots.at(-1)}:${name}`),
    ]);
    return [...older.map((res) => res?.consumedPoints ?? 0), added.consumedPoints];
  }
}

const sum = (counts: number[]) => counts.reduce((total, n) => total + n, 0);
