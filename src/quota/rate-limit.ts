/** Requests per team per minute; a spent budget answers 429 with Retry-After. */
export interface RateLimiter {
  /** Counts one request; returns seconds to wait when the budget is spent, else 0. */
  consume(team: string): Promise<number>;
}

/** Fixed one-minute windows: cheap, and the same shape a Redis INCR+EXPIRE gives in a cluster. */
export class InProcessRateLimiter implements RateLimiter {
  private readonly perMinute: number;
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(perMinute: number) {
    this.perMinute = perMinute;
  }

  async consume(team: string): Promise<number> {
    const now = Date.now();
    const windowStart = now - (now % 60_000);
    let window = this.windows.get(team);
    if (!window || window.start !== windowStart) {
      window = { start: windowStart, count: 0 };
      this.windows.set(team, window);
    }
    window.count++;
    if (window.count <= this.perMinute) return 0;
    return Math.ceil((windowStart + 60_000 - now) / 1000);
  }
}
