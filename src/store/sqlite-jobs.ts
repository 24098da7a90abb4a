import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type {
  JobKind,
  JobPatch,
  JobRecord,
  JobStatus,
  JobStore,
  NewJob,
  NewPage,
  PageCounts,
  PageError,
  PageRecord,
  PageState,
  WebhookDelivery,
} from '../jobs/job-store.ts';
import {
  bySeq,
  capValue,
  JOB_COLUMNS,
  type JobRow,
  jobFromRow,
  NEW_JOB_COLUMNS,
  newJobValues,
  PAGE_COLUMNS,
  type PageRow,
  pageCountsFrom,
  pageFromRow,
  updateJobSql,
  WEBHOOK_COLUMNS,
  type WebhookRow,
  webhookFromRow,
  webhookValues,
} from './job-rows.ts';

/** SQLite has no booleans: 1 and 0. */
const sqliteValue = <T>(v: T | boolean): T | number => (typeof v === 'boolean' ? Number(v) : v);

/**
 * The embedded mode's JobStore, on SqliteStore's connection (its tables are that store's sixth
 * migration). Each method runs to its end without yielding, so no other call of this process comes
 * between its statements; those that need more than one statement take the write lock first
 * (BEGIN IMMEDIATE) so that another process on the same file (the CLI) cannot either. Times are
 * the ISO text written: text order is time order.
 */
export class SqliteJobStore implements JobStore {
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** The statement for `text`, compiled once: a crawl runs the same few for every page. */
  private sql(text: string): StatementSync {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** `fn` under the database's write lock, all or nothing. */
  private transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      // Some errors (a full disk) end the transaction themselves; the original error is the one to see.
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  async createJob(job: NewJob): Promise<void> {
    this.sql(`INSERT INTO jobs (${NEW_JOB_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      ...newJobValues(job).map(sqliteValue),
    );
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const row = this.sql(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`).get(id) as JobRow | undefined;
    return row && jobFromRow(row);
  }

  async listActiveJobs(team: string, kind: JobKind): Promise<JobRecord[]> {
    const rows = this.sql(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE team = ? AND kind = ? AND status = 'scraping'
         ORDER BY created_at, id`,
    ).all(team, kind) as unknown as JobRow[];
    return rows.map(jobFromRow);
  }

  async updateJob(id: string, patch: JobPatch): Promise<void> {
    const update = updateJobSql(id, patch, () => '?');
    if (update) this.sql(update.sql).run(...update.values.map(sqliteValue));
  }

  async cancelJob(id: string, at: string): Promise<JobStatus | undefined> {
    return this.transaction(() => {
      const row = this.sql('SELECT status FROM jobs WHERE id = ?').get(id) as
        | { status: JobStatus }
        | undefined;
      if (row?.status === 'scraping') {
        this.sql("UPDATE jobs SET status = 'cancelled', completed_at = ? WHERE id = ?").run(at, id);
      }
      return row?.status;
    });
  }

  async touchJob(id: string, expiresAt: string): Promise<void> {
    this.sql('UPDATE jobs SET expires_at = ? WHERE id = ?').run(expiresAt, id);
  }

  async leaseJob(owner: string, now: string, until: string, id?: string): Promise<JobRecord | undefined> {
    const free = "status = 'scraping' AND (lease_owner IS NULL OR lease_until < ?)";
    const row = (
      id === undefined
        ? this.sql(
            `UPDATE jobs SET lease_owner = ?, lease_until = ?
               WHERE id = (SELECT id FROM jobs WHERE ${free} ORDER BY created_at, id LIMIT 1)
               RETURNING ${JOB_COLUMNS}`,
          ).get(owner, until, now)
        : this.sql(
            `UPDATE jobs SET lease_owner = ?, lease_until = ? WHERE id = ? AND ${free} RETURNING ${JOB_COLUMNS}`,
          ).get(owner, until, id, now)
    ) as JobRow | undefined;
    return row && jobFromRow(row);
  }

  async renewLease(id: string, owner: string, until: string): Promise<boolean> {
    const result = this.sql('UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ?').run(
      until,
      id,
      owner,
    );
    return Number(result.changes) === 1;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    this.sql('UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?').run(
      id,
      owner,
    );
  }

  async enqueuePages(jobId: string, pages: readonly NewPage[], cap: number): Promise<PageRecord[]> {
    if (pages.length === 0) return [];
    const limit = capValue(cap);
    return this.transaction(() => {
      const job = this.sql('SELECT pages_held FROM jobs WHERE id = ?').get(jobId) as
        | { pages_held: number }
        | undefined;
      if (!job) return [];
      let held = job.pages_held;
      // A key already stored (whatever its state), or earlier in this call, conflicts: the first wins.
      const insert = this.sql(
        `INSERT INTO job_pages (id, job_id, key, url, depth, state) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (job_id, key) DO NOTHING RETURNING ${PAGE_COLUMNS}`,
      );
      const added: PageRecord[] = [];
      for (const page of pages) {
        const state = page.state ?? 'queued';
        // Only queued pages take a slot: blocked and skipped ones are stored whatever the cap.
        if (state === 'queued' && limit !== null && held >= limit) continue;
        const row = insert.get(randomUUID(), jobId, page.key, page.url, page.depth, state) as
          | PageRow
          | undefined;
        if (!row) continue;
        added.push(pageFromRow(row));
        if (state === 'queued') held++;
      }
      return added;
    });
  }

  async claimPages(jobId: string, n: number): Promise<PageRecord[]> {
    if (n <= 0) return [];
    const rows = this.sql(
      `UPDATE job_pages SET state = 'active', attempts = attempts + 1
         WHERE seq IN (SELECT seq FROM job_pages WHERE job_id = ? AND state = 'queued' ORDER BY seq LIMIT ?)
         RETURNING ${PAGE_COLUMNS}`,
    ).all(jobId, n) as unknown as PageRow[];
    return rows.map(pageFromRow).sort(bySeq);
  }

  async requeueActive(jobId: string, pageId?: string): Promise<number> {
    const result = this.sql(
      "UPDATE job_pages SET state = 'queued' WHERE job_id = ? AND state = 'active' AND (? IS NULL OR id = ?)",
    ).run(jobId, pageId ?? null, pageId ?? null);
    return Number(result.changes);
  }

  async completePage(pageId: string, document: Buffer, credits: number, at: string): Promise<void> {
    this.transaction(() => {
      const row = this.sql(
        `UPDATE job_pages SET state = 'done', credits = ?, finished_at = ? WHERE id = ? AND state = 'active'
           RETURNING job_id`,
      ).get(credits, at, pageId) as { job_id: string } | undefined;
      if (!row) return;
      this.sql('INSERT INTO job_documents (job_id, page_id, body) VALUES (?, ?, ?)').run(
        row.job_id,
        pageId,
        document,
      );
    });
  }

  async failPage(
    pageId: string,
    error: { code: string | null; message: string; hidden?: boolean },
    at: string,
  ): Promise<void> {
    this.sql(
      `UPDATE job_pages SET state = 'failed', finished_at = ?, error_code = ?, error_message = ?, error_hidden = ?
         WHERE id = ? AND state = 'active'`,
    ).run(at, error.code, error.message, Number(error.hidden ?? false), pageId);
  }

  async skipQueued(jobId: string): Promise<number> {
    const result = this.sql(
      "UPDATE job_pages SET state = 'skipped' WHERE job_id = ? AND state = 'queued'",
    ).run(jobId);
    return Number(result.changes);
  }

  async pageCounts(jobId: string): Promise<PageCounts> {
    const rows = this.sql('SELECT state, count(*) AS n FROM job_pages WHERE job_id = ? GROUP BY state').all(
      jobId,
    ) as unknown as { state: PageState; n: number }[];
    return pageCountsFrom(rows);
  }

  async creditsUsed(jobId: string): Promise<number> {
    const row = this.sql(
      "SELECT coalesce(sum(credits), 0) AS n FROM job_pages WHERE job_id = ? AND state = 'done'",
    ).get(jobId) as { n: number };
    return row.n;
  }

  async readDocuments(jobId: string, skip: number, limit: number): Promise<Buffer[]> {
    const rows = this.sql(
      'SELECT body FROM job_documents WHERE job_id = ? ORDER BY seq LIMIT ? OFFSET ?',
    ).all(jobId, limit, skip) as unknown as { body: Uint8Array }[];
    return rows.map((r) => Buffer.from(r.body));
  }

  async takeDocuments(jobId: string, limit: number, maxBytes: number): Promise<Buffer[]> {
    return this.transaction(() => {
      const sizes = this.sql(
        'SELECT seq, length(body) AS bytes FROM job_documents WHERE job_id = ? ORDER BY seq LIMIT ?',
      ).all(jobId, limit) as unknown as { seq: number; bytes: number }[];
      const read = this.sql('SELECT body FROM job_documents WHERE seq = ?');
      const remove = this.sql('DELETE FROM job_documents WHERE seq = ?');
      const taken: Buffer[] = [];
      let bytes = 0;
      for (const { seq, bytes: size } of sizes) {
        if (taken.length > 0 && bytes + size > maxBytes) break;
        taken.push(Buffer.from((read.get(seq) as { body: Uint8Array }).body));
        remove.run(seq);
        bytes += size;
      }
      return taken;
    });
  }

  async countDocuments(jobId: string): Promise<number> {
    const row = this.sql('SELECT count(*) AS n FROM job_documents WHERE job_id = ?').get(jobId) as {
      n: number;
    };
    return row.n;
  }

  async readErrors(jobId: string): Promise<{ errors: PageError[]; robotsBlocked: string[] }> {
    const failed = this.sql(
      `SELECT id, finished_at, url, error_code, error_message FROM job_pages
         WHERE job_id = ? AND state = 'failed' AND error_hidden = 0 ORDER BY finished_at, seq`,
    ).all(jobId) as unknown as {
      id: string;
      finished_at: string;
      url: string;
      error_code: string | null;
      error_message: string;
    }[];
    const blocked = this.sql(
      "SELECT url FROM job_pages WHERE job_id = ? AND state = 'blocked' ORDER BY seq",
    ).all(jobId) as unknown as { url: string }[];
    return {
      errors: failed.map((r) => ({
        id: r.id,
        timestamp: r.finished_at,
        url: r.url,
        code: r.error_code,
        error: r.error_message,
      })),
      robotsBlocked: blocked.map((r) => r.url),
    };
  }

  async purgeJobs(now: string): Promise<number> {
    // Pages, documents and deliveries go with their job (ON DELETE CASCADE; SqliteStore turns
    // foreign keys on).
    return Number(this.sql('DELETE FROM jobs WHERE expires_at < ?').run(now).changes);
  }

  async queueWebhook(delivery: WebhookDelivery): Promise<void> {
    this.sql(`INSERT INTO webhook_deliveries (${WEBHOOK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(
      ...webhookValues(delivery),
    );
  }

  async claimWebhooks(owner: string, now: string, until: string, n: number): Promise<WebhookDelivery[]> {
    if (n <= 0) return [];
    return this.transaction(() => {
      // A job's oldest delivery only, and only while no claim on it lasts (a failed one is put
      // back due later, unclaimed): its later events wait behind it.
      const rows = this.sql(
        `SELECT seq, ${WEBHOOK_COLUMNS} FROM webhook_deliveries d
           WHERE next_at <= ? AND (lease_owner IS NULL OR lease_until < ?)
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.job_id = d.job_id AND e.seq < d.seq)
           ORDER BY next_at, seq LIMIT ?`,
      ).all(now, now, n) as unknown as (WebhookRow & { seq: number })[];
      const claim = this.sql('UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE seq = ?');
      for (const row of rows) claim.run(owner, until, row.seq);
      return rows.map(webhookFromRow);
    });
  }

  async removeWebhook(id: string): Promise<void> {
    this.sql('DELETE FROM webhook_deliveries WHERE id = ?').run(id);
  }

  async retryWebhook(id: string, attempts: number, nextAt: string): Promise<void> {
    this.sql(
      'UPDATE webhook_deliveries SET attempts = ?, next_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ?',
    ).run(attempts, nextAt, id);
  }
}
