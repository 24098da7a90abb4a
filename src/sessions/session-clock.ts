import { limits } from '../limits.ts';
import type { SessionRecord } from '../store/store.ts';

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
  private lastActivityMs: number;
  private expiryTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(record: SessionRecord, hooks: ClockHooks) {
    this.record = record;
    this.hooks = hooks;
    this.lastActivityMs = Date.parse(record.lastActivity);
  }

  /** Start counting down, once the session is usable. */
  start(): void {
    if (this.stopped) return;
    const { expiresAt, ttlS, activityTtlS } = this.record;
    const expires = Date.parse(expiresAt);
    const idle = () => this.lastActivityMs + activityTtlS * 1000;
    this.expiryTimer = setTimeout(
      () => {
        const now = Date.now();
        if (now >= expires) this.hooks.expire(`its ttl of ${ttlS} s ran out`);
        else if (now >= idle()) this.hooks.expire(`no activity for ${activityTtlS} s (activityTtl)`);
        else this.start();
      },
      Math.max(0, Math.min(expires, idle()) - Date.now()),
    );
  }

  touch(): void {
    this.lastActivityMs = Date.now();
    this.record.lastActivity = new Date(this.lastActivityMs).toISOString();
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      if (!this.stopped) this.hooks.flush();
    }, limits.activityFlushMs);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.expiryTimer);
    clearTimeout(this.flushTimer);
  }
}
