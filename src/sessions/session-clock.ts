import { limits } from '../limits.ts';
import type { SessionRecord } from '../store/store.ts';

/**
 * The time and timers sessions run on: the real ones, or a clock a test moves (so that a ttl or
 * an activityTtl can run out without the test waiting for it).
 */
export interface SessionTimers {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once, `ms` from now; the function returned cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** Runs `fn` every `ms`; the function returned stops it. */
  every(ms: number, fn: () => void): () => void;
}

/** The process's own clock and timers, looked up when called (so node:test's mock.timers applies). */
export const realTimers: SessionTimers = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};

export interface ClockHooks {
  /** The session's time is up, for the reason given. */
  expire(reason: string): void;
  /** Write the record's last activity to the store. */
  flush(): void;
}

/**
 * A held session's clock, so its status is always current: one timer at whichever comes first,
 * its ttl or activityTtl after its last activity (re-armed when activity moved that on). Last
 * activity lives on the record in memory and reaches the store at most every activityFlushMs,
 * so a busy CDP client does not turn into a write per message.
 */
export class SessionClock {
  private readonly record: SessionRecord;
  private readonly hooks: ClockHooks;
  private readonly timers: SessionTimers;
  private lastActivityMs: number;
  private cancelExpiry: (() => void) | undefined;
  private cancelFlush: (() => void) | undefined;
  private stopped = false;

  constructor(record: SessionRecord, hooks: ClockHooks, timers: SessionTimers = realTimers) {
    this.record = record;
    this.hooks = hooks;
    this.timers = timers;
    this.lastActivityMs = Date.parse(record.lastActivity);
  }

  /** Start counting down, once the session is usable. */
  start(): void {
    if (this.stopped) return;
    const { expiresAt, ttlS, activityTtlS } = this.record;
    const expires = Date.parse(expiresAt);
    const idle = () => this.lastActivityMs + activityTtlS * 1000;
    this.cancelExpiry = this.timers.after(Math.max(0, Math.min(expires, idle()) - this.timers.now()), () => {
      const now = this.timers.now();
      if (now >= expires) this.hooks.expire(`its ttl of ${ttlS} s ran out`);
      else if (now >= idle()) this.hooks.expire(`no activity for ${activityTtlS} s (activityTtl)`);
      else this.start();
    });
  }

  touch(): void {
    this.lastActivityMs = this.timers.now();
    this.record.lastActivity = new Date(this.lastActivityMs).toISOString();
    this.cancelFlush ??= this.timers.after(limits.activityFlushMs, () => {
      this.cancelFlush = undefined;
      if (!this.stopped) this.hooks.flush();
    });
  }

  stop(): void {
    this.stopped = true;
    this.cancelExpiry?.();
    this.cancelFlush?.();
  }
}
