import { type RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';

/** Requests per team per minute; a spent budget answers 429 with Retry-After. */
export interface RateLimiter {
  /** Admits one request and returns 0, or, when the budget is spent, the seconds to wait. */
  consume(team: string): Promise<number>;
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

  constructor(perMinute: number) {
    this.perMinute = perMinute;
    this.counters = new RateLimiterMemory({
      keyPrefix: 'quire-rate',
      // Required, but never judged by: penalty(), reward() and get() only count.
      points: perMinute,
      // A slot must outlive the window it counts in; its counter starts at its first request.
      duration: windowMs / 1000,
    });
  }

  async consume(team: string): Promise<number> {
    const now = Date.now();
    const current = Math.floor(now / slotMs);
    // Oldest first. The slot number leads the key: it has no ':', so no team name can collide.
    const slots = Array.from({ length: slotsPerWindow }, (_, i) => current - slotsPerWindow + 1 + i);
    const key = (slot: number) => `${slot}:${team}`;
    // Count first, then judge: each request's count includes every request counted before it, so
    // concurrent ones cannot all slip in. penalty() adds without judging (consume() would judge
    // this slot's count alone).
    const [older, added] = await Promise.all([
      Promise.all(slots.slice(0, -1).map((slot) => this.counters.get(key(slot)))),
      this.counters.penalty(key(current)),
    ]);
    const counts = [...older.map((res) => res?.consumedPoints ?? 0), added.consumedPoints];
    let inWindow = counts.reduce((sum, n) => sum + n, 0);
    if (inWindow <= this.perMinute) return 0;

    // Refused requests do not count, so a client that keeps retrying is let in on time.
    await this.counters.reward(key(current));
    counts[counts.length - 1]!--;
    inWindow--;
    // Wait until enough of the oldest slots have left the window for one more request.
    let leavesAt = now;
    for (let i = 0; inWindow + 1 > this.perMinute; i++) {
      inWindow -= counts[i]!;
      leavesAt = (slots[i]! + slotsPerWindow) * slotMs;
    }
    return Math.max(1, Math.ceil((leavesAt - now) / 1000));
  }
}
