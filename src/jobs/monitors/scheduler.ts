import { limits } from '../../limits.ts';
import { type CheckDeps, finishCheck, startCheck } from './monitor-checks.ts';
import type { CheckRecord, MonitorRecord } from './monitor-store.ts';
import { nextRun, type Schedule } from './schedule.ts';

/** Due monitors one look starts at most: the rest wait for the next look, a second later. */
const DUE_PER_LOOK = 20;
/** Looks between two sweeps for monitors whose running check never got written (its process died). */
const LOOKS_PER_SWEEP = 60;

/**
 * Runs monitors on their schedules, in every API process alike: each looks, every
 * limits.monitorPollMs, for monitors due (their next run time is in the store, so a restart or
 * another process carries the schedule on) and starts their checks, the store deciding which
 * process starts each (claimRun), so that a check runs once however many processes look; and
 * finishes the checks whose jobs have ended. Time is `deps.now()`, which tests move.
 */
export class MonitorScheduler {
  private readonly deps: CheckDeps;
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private looks = 0;
  private closed = false;

  constructor(deps: CheckDeps) {
    this.deps = deps;
  }

  start(): void {
    this.timer = setInterval(() => void this.look(), limits.monitorPollMs);
    this.timer.unref();
    void this.look();
  }

  /** A check started by hand (runMonitor): outside the schedule, which stays as it was. */
  async runNow(monitor: MonitorRecord): Promise<CheckRecord | undefined> {
    return startCheck(this.deps, monitor, { trigger: 'manual', due: null, nextRunAt: null });
  }

  /** One look: due monitors started, ended checks finished. Looks never overlap. */
  look(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.looking ??= this.lookOnce().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.looking;
  }

  private async lookOnce(): Promise<void> {
    const { monitors, log } = this.deps;
    try {
      const now = this.deps.now();
      const stale = new Date(now - limits.jobLeaseMs).toISOString();
      if (this.looks++ % LOOKS_PER_SWEEP === 0) await monitors.releaseOrphanedRuns(stale);
      for (const monitor of await monitors.dueMonitors(new Date(now).toISOString(), DUE_PER_LOOK)) {
        if (this.closed) return;
        // The next run counts from now: runs missed while no process looked are not made up.
        const next = nextRun(JSON.parse(monitor.schedule) as Schedule, new Date(now));
        await startCheck(this.deps, monitor, {
          trigger: 'scheduled',
          due: monitor.nextRunAt,
          nextRunAt: next,
        });
      }
      for (const check of await monitors.checksToFinish(stale)) {
        if (this.closed) return;
        await finishCheck(this.deps, check);
      }
    } catch (err) {
      log.warn({ err }, 'monitors: looking for work failed');
    }
  }
}
