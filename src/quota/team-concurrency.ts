/**
 * How many parses each team runs at once. Over the limit a request waits in line (its wait
 * counts against its own timeout) and reports it as `concurrencyLimited`; cluster mode puts
 * the same interface over Redis.
 */
export interface SlotLease {
  /** Whether the first attempt found the team at its limit. */
  limited: boolean;
  waitedMs: number;
  release(): void;
}

export interface TeamConcurrency {
  /** `onWait` runs once the team is found at its limit, before the request starts waiting. */
  acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease>;
}

/** A lease asked for at `started` (performance.now()); its release runs `free` once, however often it is called. */
export function slotLease(limited: boolean, started: number, free: () => void): SlotLease {
  let released = false;
  return {
    limited,
    waitedMs: Math.round(performance.now() - started),
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
  private readonly limitOf: (team: string) => Promise<number>;

  /** `limitOf`: the team's own limit (its settings, read through their cache). */
  constructor(limitOf: (team: string) => Promise<number>) {
    this.limitOf = limitOf;
  }

  async acquire(team: string, signal: AbortSignal, onWait?: () => void): Promise<SlotLease> {
    const started = performance.now();
    const limit = await this.limitOf(team);
    this.limits.set(team, limit);
    let limited = false;
    if ((this.running.get(team) ?? 0) >= limit) {
      limited = true;
      onWait?.();
      await this.wait(team, signal);
    }
    this.running.set(team, (this.running.get(team) ?? 0) + 1);
    return slotLease(limited, started, () => {
      this.running.set(team, (this.running.get(team) ?? 1) - 1);
      this.wakeNext(team);
    });
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
    if ((this.running.get(team) ?? 0) < this.limits.get(team)!) queue.shift()!.resolve();
  }
}
