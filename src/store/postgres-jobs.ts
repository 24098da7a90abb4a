import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
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

/**
 * The cluster mode's JobStore, on PostgresStore's pool (005_jobs.sql), shared by every process:
 * each change that must not race is one statement, or one transaction that locks what it decides
 * on, so that two processes never claim the same page, both take a job's lease, or together
 * queue past a job's limit.
 */
export class PostgresJobStore implements JobStore {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  /** `fn` in one transaction on one connection, all or nothing. */
  private async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection whose ROLLBACK failed is broken: released with the error, the pool drops it.
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async createJob(job: NewJob): Promise<void> {
    await this.pool.query(
      `INSERT INTO jobs (${NEW_JOB_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      newJobValues(job),
    );
  }

  async getJob(id: string): Promise<JobRecord | undefined> {
    const { rows } = await this.pool.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
    return rows[0] && jobFromRow(rows[0]);
  }

  async listActiveJobs(team: string, kind: JobKind): Promise<JobRecord[]> {
    // Ties broken by id in byte order, as SQLite compares text, whatever the database's collation.
    const { rows } = await this.pool.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE team = $1 AND kind = $2 AND status = 'scraping'
       ORDER BY created_at, id COLLATE "C"`,
      [team, kind],
    );
    return rows.map(jobFromRow);
  }

  async updateJob(id: string, patch: JobPatch): Promise<void> {
    const update = updateJobSql(id, patch, (i) => `$${i}`);
    if (update) await this.pool.query(update.sql, update.values);
  }

  async cancelJob(id: string, at: string): Promise<JobStatus | undefined> {
    // The row lock holds off any other change until the status read is the one replaced.
    return this.transaction(async (client) => {
      const { rows } = await client.query<{ status: JobStatus }>(
        'SELECT status FROM jobs WHERE id = $1 FOR NO KEY UPDATE',
        [id],
      );
      const status = rows[0]?.status;
      if (status === 'scraping') {
        await client.query("UPDATE jobs SET status = 'cancelled', completed_at = $2 WHERE id = $1", [id, at]);
      }
      return status;
    });
  }

  async touchJob(id: string, expiresAt: string): Promise<void> {
    await this.pool.query('UPDATE jobs SET expires_at = $2 WHERE id = $1', [id, expiresAt]);
  }

  async leaseJob(owner: string, now: string, until: string, id?: string): Promise<JobRecord | undefined> {
    // Both forms lock the row before they decide, and check the lease again on the row as a
    // concurrent change left it, so only one of two racing processes finds it free.
    const free = "status = 'scraping' AND (lease_owner IS NULL OR lease_until < $3)";
    const { rows } =
      id === undefined
        ? // Any job: one that another process is leasing (or changing) right now is passed over for the next.
          await this.pool.query<JobRow>(
            `UPDATE jobs SET lease_owner = $1, lease_until = $2
             WHERE id = (
               SELECT id FROM jobs WHERE ${free} ORDER BY created_at, id COLLATE "C" LIMIT 1
               FOR NO KEY UPDATE SKIP LOCKED)
             RETURNING ${JOB_COLUMNS}`,
            [owner, until, now],
          )
        : await this.pool.query<JobRow>(
            `UPDATE jobs SET lease_owner = $1, lease_until = $2 WHERE id = $4 AND ${free} RETURNING ${JOB_COLUMNS}`,
            [owner, until, now, id],
          );
    return rows[0] && jobFromRow(rows[0]);
  }

  async renewLease(id: string, owner: string, until: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE jobs SET lease_until = $3 WHERE id = $1 AND lease_owner = $2',
      [id, owner, until],
    );
    return rowCount === 1;
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    await this.pool.query(
      'UPDATE jobs SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2',
      [id, owner],
    );
  }

  async enqueuePages(jobId: string, pages: readonly NewPage[], cap: number): Promise<PageRecord[]> {
    if (pages.length === 0) return [];
    return this.transaction(async (client) => {
      // Two calls for one job take turns here, so the second counts the pages the first added.
      // NO KEY: the job's other writers (documents, deliveries) only need it to exist, and wait not.
      const job = await client.query('SELECT 1 FROM jobs WHERE id = $1 FOR NO KEY UPDATE', [jobId]);
      if (job.rowCount !== 1) return [];
      // New keys (the first of each in this call), in order; each is stored while the pages that
      // count (those before it, and those the job holds) are fewer than the cap.
      const { rows } = await client.query<PageRow>(
        `WITH input AS (
           SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::integer[], $6::text[])
             WITH ORDINALITY AS t(id, key, url, depth, state, ord)),
         fresh AS (
           SELECT DISTINCT ON (key) * FROM input
           WHERE NOT EXISTS (SELECT 1 FROM job_pages p WHERE p.job_id = $1 AND p.key = input.key)
           ORDER BY key, ord),
         counted AS (
           SELECT *, count(*) FILTER (WHERE state = 'queued') OVER (ORDER BY ord)
                     - CASE WHEN state = 'queued' THEN 1 ELSE 0 END AS before
           FROM fresh)
         INSERT INTO job_pages (id, job_id, key, url, depth, state)
         SELECT id, $1, key, url, depth, state FROM counted
         WHERE state <> 'queued' OR $7::bigint IS NULL OR before < $7::bigint - (
           SELECT count(*) FROM job_pages WHERE job_id = $1 AND state IN ('queued', 'active', 'done'))
         ORDER BY ord
         ON CONFLICT (job_id, key) DO NOTHING
         RETURNING ${PAGE_COLUMNS}`,
        [
          jobId,
          pages.map(() => randomUUID()),
          pages.map((p) => p.key),
          pages.map((p) => p.url),
          pages.map((p) => p.depth),
          pages.map((p) => p.state ?? 'queued'),
          capValue(cap),
        ],
      );
      return rows.map(pageFromRow).sort(bySeq);
    });
  }

  async claimPages(jobId: string, n: number): Promise<PageRecord[]> {
    if (n <= 0) return [];
    // SKIP LOCKED: a page another claimer holds is left to it, and this one takes the next.
    // MATERIALIZED: chosen once, then updated by primary key; as `seq IN (subquery)` the planner
    // may run the subquery again for each row it joins (taking more than n) and scan other jobs.
    const { rows } = await this.pool.query<PageRow>(
      `WITH chosen AS MATERIALIZED (
         SELECT seq AS chosen_seq FROM job_pages WHERE job_id = $1 AND state = 'queued' ORDER BY seq LIMIT $2
         FOR UPDATE SKIP LOCKED)
       UPDATE job_pages SET state = 'active', attempts = attempts + 1
       FROM chosen WHERE seq = chosen_seq
       RETURNING ${PAGE_COLUMNS}`,
      [jobId, n],
    );
    return rows.map(pageFromRow).sort(bySeq);
  }

  async requeueActive(jobId: string, pageId?: string): Promise<number> {
    const { rowCount } = await this.pool.query(
      "UPDATE job_pages SET state = 'queued' WHERE job_id = $1 AND state = 'active' AND ($2::text IS NULL OR id::text = $2)",
      [jobId, pageId ?? null],
    );
    return rowCount ?? 0;
  }

  async completePage(pageId: string, document: Buffer, credits: number, at: string): Promise<void> {
    // One statement: the document is stored only by the call that moved the page from active.
    await this.pool.query(
      `WITH done AS (
         UPDATE job_pages SET state = 'done', credits = $2, finished_at = $3 WHERE id = $1 AND state = 'active'
         RETURNING job_id, id)
       INSERT INTO job_documents (job_id, page_id, body) SELECT job_id, id, $4::bytea FROM done`,
      [pageId, credits, at, document],
    );
  }

  async failPage(
    pageId: string,
    error: { code: string | null; message: string; hidden?: boolean },
    at: string,
  ): Promise<void> {
    await this.pool.query(
      `UPDATE job_pages SET state = 'failed', finished_at = $2, error_code = $3, error_message = $4,
         error_hidden = $5 WHERE id = $1 AND state = 'active'`,
      [pageId, at, error.code, error.message, error.hidden ?? false],
    );
  }

  async skipQueued(jobId: string): Promise<number> {
    const { rowCount } = await this.pool.query(
      "UPDATE job_pages SET state = 'skipped' WHERE job_id = $1 AND state = 'queued'",
      [jobId],
    );
    return rowCount ?? 0;
  }

  async pageCounts(jobId: string): Promise<PageCounts> {
    const { rows } = await this.pool.query<{ state: PageState; n: string }>(
      'SELECT state, count(*) AS n FROM job_pages WHERE job_id = $1 GROUP BY state',
      [jobId],
    );
    return pageCountsFrom(rows);
  }

  async creditsUsed(jobId: string): Promise<number> {
    // sum(integer) is a bigint, which pg hands over as a string.
    const { rows } = await this.pool.query<{ n: string }>(
      "SELECT coalesce(sum(credits), 0) AS n FROM job_pages WHERE job_id = $1 AND state = 'done'",
      [jobId],
    );
    return Number(rows[0]!.n);
  }

  async readDocuments(jobId: string, skip: number, limit: number): Promise<Buffer[]> {
    const { rows } = await this.pool.query<{ body: Buffer }>(
      'SELECT body FROM job_documents WHERE job_id = $1 ORDER BY seq OFFSET $2 LIMIT $3',
      [jobId, skip, limit],
    );
    return rows.map((r) => r.body);
  }

  async takeDocuments(jobId: string, limit: number, maxBytes: number): Promise<Buffer[]> {
    return this.transaction(async (client) => {
      // SKIP LOCKED: a document another reader is taking is left to it.
      const { rows: sizes } = await client.query<{ seq: string; bytes: number }>(
        `SELECT seq, octet_length(body) AS bytes FROM job_documents WHERE job_id = $1
         ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [jobId, limit],
      );
      const chosen: string[] = [];
      let bytes = 0;
      for (const { seq, bytes: size } of sizes) {
        if (chosen.length > 0 && bytes + size > maxBytes) break;
        chosen.push(seq);
        bytes += size;
      }
      if (chosen.length === 0) return [];
      const { rows } = await client.query<{ body: Buffer }>(
        `WITH taken AS (DELETE FROM job_documents WHERE seq = ANY($1::bigint[]) RETURNING seq, body)
         SELECT body FROM taken ORDER BY seq`,
        [chosen],
      );
      return rows.map((r) => r.body);
    });
  }

  async countDocuments(jobId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM job_documents WHERE job_id = $1',
      [jobId],
    );
    return Number(rows[0]!.n);
  }

  async readErrors(jobId: string): Promise<{ errors: PageError[]; robotsBlocked: string[] }> {
    const [failed, blocked] = await Promise.all([
      this.pool.query<{
        id: string;
        finished_at: Date;
        url: string;
        error_code: string | null;
        error_message: string;
      }>(
        `SELECT id, finished_at, url, error_code, error_message FROM job_pages
         WHERE job_id = $1 AND state = 'failed' AND NOT error_hidden ORDER BY finished_at, seq`,
        [jobId],
      ),
      this.pool.query<{ url: string }>(
        "SELECT url FROM job_pages WHERE job_id = $1 AND state = 'blocked' ORDER BY seq",
        [jobId],
      ),
    ]);
    return {
      errors: failed.rows.map((r) => ({
        id: r.id,
        timestamp: r.finished_at.toISOString(),
        url: r.url,
        code: r.error_code,
        error: r.error_message,
      })),
      robotsBlocked: blocked.rows.map((r) => r.url),
    };
  }

  async purgeJobs(now: string): Promise<number> {
    // Pages, documents and deliveries go with their job (ON DELETE CASCADE), in the same statement.
    const { rowCount } = await this.pool.query('DELETE FROM jobs WHERE expires_at < $1', [now]);
    return rowCount ?? 0;
  }

  async queueWebhook(delivery: WebhookDelivery): Promise<void> {
    await this.pool.query(
      `INSERT INTO webhook_deliveries (${WEBHOOK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      webhookValues(delivery),
    );
  }

  async claimWebhooks(owner: string, now: string, until: string, n: number): Promise<WebhookDelivery[]> {
    if (n <= 0) return [];
    // A job's oldest delivery only, and only while no claim on it lasts. SKIP LOCKED: a delivery
    // another process is claiming is left to it, and the row lock re-checks the claim on the row
    // as that process left it; a job's later event is no candidate while the one it waits behind
    // exists, locked or not. MATERIALIZED: chosen once, then updated by primary key (claimPages).
    const { rows } = await this.pool.query<WebhookRow & { seq: string }>(
      `WITH chosen AS MATERIALIZED (
         SELECT seq AS chosen_seq FROM webhook_deliveries d
         WHERE next_at <= $2 AND (lease_owner IS NULL OR lease_until < $2)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e WHERE e.job_id = d.job_id AND e.seq < d.seq)
         ORDER BY next_at, seq LIMIT $4
         FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $3
       FROM chosen WHERE seq = chosen_seq
       RETURNING seq, ${WEBHOOK_COLUMNS}`,
      [owner, now, until, n],
    );
    // RETURNING hands rows over in no promised order.
    const time = (r: WebhookRow) => new Date(r.next_at).getTime();
    return rows.sort((a, b) => time(a) - time(b) || Number(a.seq) - Number(b.seq)).map(webhookFromRow);
  }

  async removeWebhook(id: string): Promise<void> {
    await this.pool.query('DELETE FROM webhook_deliveries WHERE id = $1', [id]);
  }

  async retryWebhook(id: string, attempts: number, nextAt: string): Promise<void> {
    await this.pool.query(
      `UPDATE webhook_deliveries SET attempts = $2, next_at = $3, lease_owner = NULL, lease_until = NULL
       WHERE id = $1`,
      [id, attempts, nextAt],
    );
  }
}
