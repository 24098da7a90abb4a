import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type pg from 'pg';
import type {
  CheckPageRecord,
  CheckPatch,
  CheckRecord,
  MonitorPatch,
  MonitorRecord,
  MonitorStore,
  PageStatus,
} from '../jobs/monitors/monitor-store.ts';

/** A value either database binds. */
type SqlValue = string | number | null;

/**
 * What SqlMonitorStore needs of a database: its statements are written with `$1`, `$2`, ...
 * parameters (PostgreSQL's; SQLite reads them as `?1`, `?2`), their tables hold only text and
 * integers, so both databases hand rows over alike.
 */
export interface SqlRunner {
  all<T>(sql: string, params: SqlValue[]): Promise<T[]>;
  /** Rows changed. */
  run(sql: string, params: SqlValue[]): Promise<number>;
  /** Runs `statements` as one transaction. */
  batch(statements: { sql: string; params: SqlValue[] }[]): Promise<void>;
}

interface MonitorRow {
  id: string;
  team: string;
  key_id: string;
  name: string;
  status: MonitorRecord['status'];
  schedule: string;
  targets: string;
  webhook: string | null;
  retention_days: number;
  goal: string | null;
  judge_enabled: number;
  base: string;
  next_run_at: string | null;
  last_run_at: string | null;
  current_check_id: string | null;
  last_check_summary: string | null;
  created_at: string;
  updated_at: string;
}

const MONITOR_COLUMNS =
  'id, team, key_id, name, status, schedule, targets, webhook, retention_days, goal, judge_enabled, base, ' +
  'next_run_at, last_run_at, current_check_id, last_check_summary, created_at, updated_at';

const monitorFromRow = (r: MonitorRow): MonitorRecord => ({
  id: r.id,
  team: r.team,
  keyId: r.key_id,
  name: r.name,
  status: r.status,
  schedule: r.schedule,
  targets: r.targets,
  webhook: r.webhook,
  retentionDays: Number(r.retention_days),
  goal: r.goal,
  judgeEnabled: Number(r.judge_enabled) === 1,
  base: r.base,
  nextRunAt: r.next_run_at,
  lastRunAt: r.last_run_at,
  currentCheckId: r.current_check_id,
  lastCheckSummary: r.last_check_summary,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const monitorPatchColumns: Record<keyof MonitorPatch, string> = {
  name: 'name',
  status: 'status',
  schedule: 'schedule',
  targets: 'targets',
  webhook: 'webhook',
  retentionDays: 'retention_days',
  goal: 'goal',
  judgeEnabled: 'judge_enabled',
  nextRunAt: 'next_run_at',
  lastCheckSummary: 'last_check_summary',
  updatedAt: 'updated_at',
};

interface CheckRow {
  id: string;
  monitor_id: string;
  team: string;
  status: CheckRecord['status'];
  trigger: CheckRecord['trigger'];
  scheduled_for: string | null;
  started_at: string;
  finished_at: string | null;
  actual_credits: number | null;
  summary: string;
  target_results: string;
  notification_status: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

const CHECK_COLUMNS =
  'id, monitor_id, team, status, trigger, scheduled_for, started_at, finished_at, actual_credits, summary, ' +
  'target_results, notification_status, error, created_at, updated_at';

const checkFromRow = (r: CheckRow): CheckRecord => ({
  id: r.id,
  monitorId: r.monitor_id,
  team: r.team,
  status: r.status,
  trigger: r.trigger,
  scheduledFor: r.scheduled_for,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  actualCredits: r.actual_credits === null ? null : Number(r.actual_credits),
  summary: r.summary,
  targetResults: r.target_results,
  notificationStatus: r.notification_status,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const checkPatchColumns: Record<keyof CheckPatch, string> = {
  status: 'status',
  finishedAt: 'finished_at',
  actualCredits: 'actual_credits',
  summary: 'summary',
  targetResults: 'target_results',
  notificationStatus: 'notification_status',
  error: 'error',
  updatedAt: 'updated_at',
};

interface PageRow {
  id: string;
  check_id: string;
  target_id: string;
  url: string;
  status: PageStatus;
  status_code: number | null;
  error: string | null;
  diff: string | null;
  scrape_id: string | null;
  created_at: string;
}

const PAGE_COLUMNS = 'id, check_id, target_id, url, status, status_code, error, diff, scrape_id, created_at';

const pageFromRow = (r: PageRow): CheckPageRecord => ({
  id: r.id,
  checkId: r.check_id,
  targetId: r.target_id,
  url: r.url,
  status: r.status,
  statusCode: r.status_code === null ? null : Number(r.status_code),
  error: r.error,
  diff: r.diff,
  scrapeId: r.scrape_id,
  createdAt: r.created_at,
});

const bind = (v: string | number | boolean | null | undefined): SqlValue =>
  typeof v === 'boolean' ? Number(v) : (v ?? null);

/** `UPDATE table SET …` for the patched columns; undefined when the patch changes nothing. */
function update<P extends object>(
  table: string,
  columns: Record<keyof P, string>,
  id: string,
  patch: P,
): { sql: string; params: SqlValue[] } | undefined {
  const keys = (Object.keys(columns) as (keyof P)[]).filter((k) => patch[k] !== undefined);
  if (keys.length === 0) return undefined;
  return {
    sql: `UPDATE ${table} SET ${keys.map((k, i) => `${columns[k]} = $${i + 1}`).join(', ')} WHERE id = $${keys.length + 1}`,
    params: [...keys.map((k) => bind(patch[k] as string | number | boolean | null)), id],
  };
}

/** The monitors' MonitorStore on either database (both stores' migrations make the same tables). */
export class SqlMonitorStore implements MonitorStore {
  private readonly db: SqlRunner;

  constructor(db: SqlRunner) {
    this.db = db;
  }

  async createMonitor(m: MonitorRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO monitors (${MONITOR_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        m.id,
        m.team,
        m.keyId,
        m.name,
        m.status,
        m.schedule,
        m.targets,
        m.webhook,
        m.retentionDays,
        m.goal,
        bind(m.judgeEnabled),
        m.base,
        m.nextRunAt,
        m.lastRunAt,
        m.currentCheckId,
        m.lastCheckSummary,
        m.createdAt,
        m.updatedAt,
      ],
    );
  }

  async getMonitor(id: string): Promise<MonitorRecord | undefined> {
    const [row] = await this.db.all<MonitorRow>(`SELECT ${MONITOR_COLUMNS} FROM monitors WHERE id = $1`, [
      id,
    ]);
    return row && monitorFromRow(row);
  }

  async listMonitors(team: string, limit: number, offset: number): Promise<MonitorRecord[]> {
    const rows = await this.db.all<MonitorRow>(
      `SELECT ${MONITOR_COLUMNS} FROM monitors WHERE team = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [team, limit, offset],
    );
    return rows.map(monitorFromRow);
  }

  async updateMonitor(id: string, patch: MonitorPatch): Promise<void> {
    const statement = update('monitors', monitorPatchColumns, id, patch);
    if (statement) await this.db.run(statement.sql, statement.params);
  }

  async deleteMonitor(id: string): Promise<void> {
    // Pages and checks first: SQLite cascades only where foreign keys are on.
    await this.db.batch([
      {
        sql: 'DELETE FROM monitor_check_pages WHERE check_id IN (SELECT id FROM monitor_checks WHERE monitor_id = $1)',
        params: [id],
      },
      { sql: 'DELETE FROM monitor_checks WHERE monitor_id = $1', params: [id] },
      { sql: 'DELETE FROM monitors WHERE id = $1', params: [id] },
    ]);
  }

  async dueMonitors(now: string, n: number): Promise<MonitorRecord[]> {
    const rows = await this.db.all<MonitorRow>(
      `SELECT ${MONITOR_COLUMNS} FROM monitors
       WHERE status = 'active' AND next_run_at <= $1 AND current_check_id IS NULL
       ORDER BY next_run_at LIMIT $2`,
      [now, n],
    );
    return rows.map(monitorFromRow);
  }

  async claimRun(
    id: string,
    claim: { checkId: string; due: string | null; nextRunAt: string | null; at: string },
  ): Promise<boolean> {
    // A manual run (due null) keeps the schedule; a scheduled one moves it on, if still due.
    const changed =
      claim.due === null
        ? await this.db.run(
            `UPDATE monitors SET current_check_id = $2, last_run_at = $3
             WHERE id = $1 AND current_check_id IS NULL`,
            [id, claim.checkId, claim.at],
          )
        : await this.db.run(
            `UPDATE monitors SET current_check_id = $2, last_run_at = $3, next_run_at = $4
             WHERE id = $1 AND current_check_id IS NULL AND status = 'active' AND next_run_at = $5`,
            [id, claim.checkId, claim.at, claim.nextRunAt, claim.due],
          );
    return changed === 1;
  }

  async releaseRun(id: string, checkId: string): Promise<void> {
    await this.db.run('UPDATE monitors SET current_check_id = NULL WHERE id = $1 AND current_check_id = $2', [
      id,
      checkId,
    ]);
  }

  async createCheck(c: CheckRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO monitor_checks (${CHECK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        c.id,
        c.monitorId,
        c.team,
        c.status,
        c.trigger,
        c.scheduledFor,
        c.startedAt,
        c.finishedAt,
        c.actualCredits,
        c.summary,
        c.targetResults,
        c.notificationStatus,
        c.error,
        c.createdAt,
        c.updatedAt,
      ],
    );
  }

  async getCheck(id: string): Promise<CheckRecord | undefined> {
    const [row] = await this.db.all<CheckRow>(`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = $1`, [
      id,
    ]);
    return row && checkFromRow(row);
  }

  async updateCheck(id: string, patch: CheckPatch): Promise<void> {
    const statement = update('monitor_checks', checkPatchColumns, id, patch);
    if (statement) await this.db.run(statement.sql, statement.params);
  }

  async listChecks(monitorId: string, limit: number, offset: number): Promise<CheckRecord[]> {
    const rows = await this.db.all<CheckRow>(
      `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE monitor_id = $1
       ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [monitorId, limit, offset],
    );
    return rows.map(checkFromRow);
  }

  async checksToFinish(staleBefore: string): Promise<CheckRecord[]> {
    const rows = await this.db.all<CheckRow>(
      `SELECT ${CHECK_COLUMNS} FROM monitor_checks
       WHERE status = 'running' OR (status = 'finishing' AND updated_at < $1) ORDER BY created_at`,
      [staleBefore],
    );
    return rows.map(checkFromRow);
  }

  async claimFinish(check: CheckRecord, at: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE monitor_checks SET status = 'finishing', updated_at = $2
       WHERE id = $1 AND status = $3 AND updated_at = $4`,
      [check.id, at, check.status, check.updatedAt],
    );
    return changed === 1;
  }

  async releaseOrphanedRuns(before: string): Promise<number> {
    return this.db.run(
      `UPDATE monitors SET current_check_id = NULL
       WHERE current_check_id IS NOT NULL AND last_run_at < $1 AND NOT EXISTS (
         SELECT 1 FROM monitor_checks c WHERE c.id = monitors.current_check_id AND c.status IN ('running', 'finishing'))`,
      [before],
    );
  }

  async setCheckPages(checkId: string, pages: readonly CheckPageRecord[]): Promise<void> {
    await this.db.batch([
      { sql: 'DELETE FROM monitor_check_pages WHERE check_id = $1', params: [checkId] },
      ...pages.map((p, i) => ({
        sql: `INSERT INTO monitor_check_pages (id, check_id, seq, target_id, url, status, status_code, error, diff, scrape_id, created_at)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        params: [
          p.id,
          checkId,
          i,
          p.targetId,
          p.url,
          p.status,
          p.statusCode,
          p.error,
          p.diff,
          p.scrapeId,
          p.createdAt,
        ],
      })),
    ]);
  }

  async readCheckPages(
    checkId: string,
    skip: number,
    limit: number,
    status?: PageStatus,
  ): Promise<CheckPageRecord[]> {
    const rows = await this.db.all<PageRow>(
      `SELECT ${PAGE_COLUMNS} FROM monitor_check_pages
       WHERE check_id = $1 AND ($2 = '' OR status = $2) ORDER BY seq LIMIT $3 OFFSET $4`,
      [checkId, status ?? '', limit, skip],
    );
    return rows.map(pageFromRow);
  }

  async lastCheckUrls(monitorId: string, targetId: string, before: string): Promise<string[]> {
    const [last] = await this.db.all<{ id: string }>(
      `SELECT id FROM monitor_checks WHERE monitor_id = $1 AND status NOT IN ('running', 'finishing') AND created_at < $2
       ORDER BY created_at DESC, id DESC LIMIT 1`,
      [monitorId, before],
    );
    if (!last) return [];
    const rows = await this.db.all<{ url: string }>(
      `SELECT url FROM monitor_check_pages WHERE check_id = $1 AND target_id = $2 AND status <> 'removed' ORDER BY seq`,
      [last.id, targetId],
    );
    return rows.map((r) => r.url);
  }

  async purgeChecks(monitorId: string, before: string): Promise<number> {
    const old = `SELECT id FROM monitor_checks WHERE monitor_id = $1 AND status NOT IN ('running', 'finishing') AND finished_at < $2`;
    const [{ n }] = (await this.db.all<{ n: number | string }>(`SELECT count(*) AS n FROM (${old}) AS o`, [
      monitorId,
      before,
    ])) as [{ n: number | string }];
    if (Number(n) === 0) return 0;
    await this.db.batch([
      { sql: `DELETE FROM monitor_check_pages WHERE check_id IN (${old})`, params: [monitorId, before] },
      { sql: `DELETE FROM monitor_checks WHERE id IN (${old})`, params: [monitorId, before] },
    ]);
    return Number(n);
  }
}

/** SQLite's runner: `$n` read as `?n`, statements prepared once. */
export function sqliteRunner(db: DatabaseSync): SqlRunner {
  const prepared = new Map<string, StatementSync>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
      prepared.set(sql, statement);
    }
    return statement;
  };
  const run = (sql: string, params: SqlValue[]) => Number(prepare(sql).run(...params).changes);
  return {
    all: async <T>(sql: string, params: SqlValue[]) => prepare(sql).all(...params) as T[],
    run: async (sql, params) => run(sql, params),
    async batch(statements) {
      db.exec('BEGIN');
      try {
        for (const { sql, params } of statements) run(sql, params);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
  };
}

/** PostgreSQL's runner, on the store's pool. */
export function postgresRunner(pool: pg.Pool): SqlRunner {
  return {
    all: async <T>(sql: string, params: SqlValue[]) => (await pool.query(sql, params)).rows as T[],
    run: async (sql, params) => (await pool.query(sql, params)).rowCount ?? 0,
    async batch(statements) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        for (const { sql, params } of statements) await client.query(sql, params);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
