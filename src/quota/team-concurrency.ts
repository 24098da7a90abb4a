import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';

/**
 * How many parses each team runs at once. Over the limit a request waits in line (its wait
 * counts against its own timeout) and reports it as `concurrencyLimited`, unless the team's
 * queue depth of waiting requests is reached: then it is refused with 429. Cluster mode puts
 * the same interface over Redis.
 */
export interface SlotLease {
  /** Whether the first attempt found the team at its limit. */
  limited: boolean;
  waitedMs: number;
  release(): void;
}

/** What a team is held to: parses at once, and requests that may wait for one (null: any number). */
export interface TeamLimits {
  concurrency: number;
  queueDepth: number | null;
}

export interface TeamConcurrency {
  /**
   * `onWait` runs once the team is found at its limit, before the request starts waiting.
   * Rejects with teamQueueFull when the team already has its queue depth of requests waiting.
   */
  acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease>;
  /** The team's parses running now and requests waiting for a slot (in every process of a cluster). */
  inUse(team: string): Promise<TeamLoad>;
}

export interface TeamLoad {
  running: number;
  waiting: number;
}

/** The contract's 429 (`error` only, with Retry-After) for a request that would wait past its team's queue depth. */
export function teamQueueFull({ concurrency, queueDepth }: TeamLimits): ApiError {
  return new ApiError(
    429,
    undefined,
    `Concurrency limit exceeded: your team's queue is full (it runs ${concurrency} at once and ${queueDepth} may wait). Please retry after ${limits.teamQueueFullRetryS}s.`,
    { headers: { 'retry-after': String(limits.teamQueueFullRetryS) } },
  );
}

/**
 * A lease asked for at `started` and given at `now` (both performance.now() unless a test's clock);
 * its release runs `free` once, however often it is called.
 */
export function slotLease(
  limited: boolean,
  started: number,
  free: () => void,
  now: number = performance.now(),
): SlotLease {
  let released = false;
  return {
    limited,
    waitedMs: Math.round(now - started),
    release: () => {
      if (released) return;
      released = true;
      free();
    },
  };
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class InProcessTeamConcurrency implements TeamConcurrency {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();
  /** Each team's limit as its latest request found it, for waking its waiters. */
  private readonly limits = new Map<string, number>();
  private readonly limitsOf: (team: string) => Promise<TeamLimits>;
  private readonly now: () => number;

  /**
   * `limitsOf`: the team's own limits (its settings, read through their cache). `now`: the clock
   * a lease's wait is measured on, injected so that tests move it.
   */
  constructor(limitsOf: (team: string) => Promise<TeamLimits>, now: () => number = () => performance.now()) {
    this.limitsOf = limitsOf;
    this.now = now;
  }

  async acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease> {
    const started = this.now();
    const teamLimits = await this.limitsOf(team);
    this.limits.set(team, teamLimits.concurrency);
    let limited = false;
    if ((this.running.get(team) ?? 0) >= teamLimits.concurrency) {
      const { queueDepth } = teamLimits;
      if (queueDepth !== null && (this.waiting.get(team)?.length ?? 0) >= queueDepth)
        throw teamQueueFull(teamLimits);
      limited = true;
      onWait?.();
      // wakeNext counts the slot as it hands it over, so no request arriving meanwhile takes it.
      await this.wait(team, signal);
    } else this.running.set(team, (this.running.get(team) ?? 0) + 1);
    return slotLease(
      limited,
      started,
      () => {
        this.running.set(team, (this.running.get(team) ?? 1) - 1);
        this.wakeNext(team);
      },
      this.now(),
    );
  }

  async inUse(team: string): Promise<TeamLoad> {
    return { running: this.running.get(team) ?? 0, waiting: this.waiting.get(team)?.length ?? 0 };
  }

  private wait(team: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(team) ?? [];
      this.waiting.set(team, queue);
      const waiter: Waiter = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = () => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      // Aborted while its limits were read: it must not take a place in line that nobody frees.
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  private wakeNext(team: string): void {
    const queue = this.waiting.get(team);
    if (!queue || queue.length === 0) {
      this.waiting.delete(team);
      return;
    }
    const running = this.running.get(team) ?? 0;
    if (running < this.limits.get(team)!) {
      this.running.set(team, running + 1);
      queue.shift()!.resolve();
    }
  }
}
