/**
 * Where monitors keep everything: the monitor (its schedule and when it next runs, so a restarted
 * process or another API process carries the schedule on), its checks and each check's pages.
 * SQLite in embedded mode, PostgreSQL in a cluster (src/store/sql-monitors.ts, one implementation
 * for both).
 */

export type MonitorStatus = 'active' | 'paused';

export interface MonitorRecord {
  /** UUIDv7. */
  id: string;
  team: string;
  keyId: string;
  name: string;
  status: MonitorStatus;
  /** The schedule as the API shows it ({cron, timezone, text?}), JSON text. */
  schedule: string;
  /** The targets, each with its id, JSON text. */
  targets: string;
  /** The webhook (MonitorWebhook), JSON text; null without one. */
  webhook: string | null;
  retentionDays: number;
  goal: string | null;
  judgeEnabled: boolean;
  /** Quire's public base URL when the monitor was made: where its pages' screenshot URLs point. */
  base: string;
  /** When the next scheduled check is due (ISO); null while paused. */
  nextRunAt: string | null;
  lastRunAt: string | null;
  /** The check running now; a monitor runs one check at a time. */
  currentCheckId: string | null;
  /** The last finished check's summary (MonitorSummary), JSON text. */
  lastCheckSummary: string | null;
  createdAt: string;
  updatedAt: string;
}

export type MonitorPatch = Partial<
  Pick<
    MonitorRecord,
    | 'name'
    | 'status'
    | 'schedule'
    | 'targets'
    | 'webhook'
    | 'retentionDays'
    | 'goal'
    | 'judgeEnabled'
    | 'nextRunAt'
    | 'lastCheckSummary'
    | 'updatedAt'
  >
>;

/** `finishing`: one process is writing its pages; `skipped_no_credits`: the team had none when it was due. */
export type CheckStatus = 'running' | 'finishing' | 'completed' | 'failed' | 'partial' | 'skipped_no_credits';

export interface CheckRecord {
  id: string;
  monitorId: string;
  team: string;
  status: CheckStatus;
  trigger: 'scheduled' | 'manual';
  scheduledFor: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** Credits its pages cost; null until it ends. */
  actualCredits: number | null;
  /** MonitorSummary, JSON text. */
  summary: string;
  /** Each target's job ({targetId, type, jobId}), JSON text. */
  targetResults: string;
  /** Whether and how its webhook was sent, JSON text; null before it ends. */
  notificationStatus: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

export type CheckPatch = Partial<
  Pick<
    CheckRecord,
    | 'status'
    | 'finishedAt'
    | 'actualCredits'
    | 'summary'
    | 'targetResults'
    | 'notificationStatus'
    | 'error'
    | 'updatedAt'
  >
>;

export type PageStatus = 'same' | 'new' | 'changed' | 'removed' | 'error';

export interface CheckPageRecord {
  id: string;
  checkId: string;
  targetId: string;
  url: string;
  status: PageStatus;
  statusCode: number | null;
  error: string | null;
  /** The git-style diff against the previous check's page; null when there is none. */
  diff: string | null;
  /** The scrape that read the page this time. */
  scrapeId: string | null;
  createdAt: string;
}

export interface MonitorStore {
  createMonitor(monitor: MonitorRecord): Promise<void>;
  getMonitor(id: string): Promise<MonitorRecord | undefined>;
  /** The team's monitors, newest first. */
  listMonitors(team: string, limit: number, offset: number): Promise<MonitorRecord[]>;
  updateMonitor(id: string, patch: MonitorPatch): Promise<void>;
  /** The monitor, its checks and their pages. */
  deleteMonitor(id: string): Promise<void>;
  /** Up to `n` active monitors whose next check is due at `now` and that run none, earliest first. */
  dueMonitors(now: string, n: number): Promise<MonitorRecord[]>;
  /**
   * Make `checkId` the monitor's running check, and its next run `nextRunAt`, only if it runs
   * none and (for a scheduled check) its next run is still `due`: in one statement, so that of
   * every process that saw it due, one runs the check. False when another did.
   */
  claimRun(
    id: string,
    claim: { checkId: string; due: string | null; nextRunAt: string | null; at: string },
  ): Promise<boolean>;
  /** The monitor runs no check (its check ended, or never started). */
  releaseRun(id: string, checkId: string): Promise<void>;
  createCheck(check: CheckRecord): Promise<void>;
  getCheck(id: string): Promise<CheckRecord | undefined>;
  updateCheck(id: string, patch: CheckPatch): Promise<void>;
  /** The monitor's checks, newest first. */
  listChecks(monitorId: string, limit: number, offset: number): Promise<CheckRecord[]>;
  /**
   * Checks to finish, oldest first: those running, and those a process began to finish but did
   * not by `staleBefore` (it died).
   */
  checksToFinish(staleBefore: string): Promise<CheckRecord[]>;
  /**
   * Take the finishing of `check` (as read: its status and updatedAt unchanged since), in one
   * statement, so that of every process that saw it ready one writes its pages. False when another did.
   */
  claimFinish(check: CheckRecord, at: string): Promise<boolean>;
  /**
   * Release monitors whose run was claimed before `before` and whose check is not running (its
   * process died between claiming the run and writing the check); how many. A claim newer than
   * that may be a process still writing its check.
   */
  releaseOrphanedRuns(before: string): Promise<number>;
  /** The check's pages, in order, in place of any it had (a finishing begun again writes them again). */
  setCheckPages(checkId: string, pages: readonly CheckPageRecord[]): Promise<void>;
  /** The check's pages in the order they were added, from the `skip`-th, at most `limit`, of one status or all. */
  readCheckPages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<CheckPageRecord[]>;
  /** The URLs of a target's pages in the monitor's last finished check before `before` (not those it found removed). */
  lastCheckUrls(monitorId: string, targetId: string, before: string): Promise<string[]>;
  /** Delete the monitor's finished checks (and their pages) that finished before `before`; how many. */
  purgeChecks(monitorId: string, before: string): Promise<number>;
}
