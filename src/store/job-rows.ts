import type {
  JobPatch,
  JobRecord,
  JobStatus,
  NewJob,
  PageCounts,
  PageRecord,
  PageState,
  WebhookDelivery,
} from '../jobs/job-store.ts';

/**
 * The jobs tables' rows as either database hands them over, and the records they make: SQLite
 * has no booleans (0 and 1) and keeps times as the ISO text written; pg reads timestamptz as
 * Date and bigint as text. Shared by SqliteJobStore and PostgresJobStore so both read alike.
 */

/** The jobs table's columns, in JobRecord's order; both stores select them so. */
export const JOB_COLUMNS =
  'id, kind, team, key_id, url, options, webhook, status, zero_data_retention, created_at, completed_at, ' +
  'expires_at, kickoff_done, robots, error, lease_owner, lease_until, result';

/** The columns `createJob` writes, and a new job's values in their order. */
export const NEW_JOB_COLUMNS =
  'id, kind, team, key_id, url, options, webhook, status, zero_data_retention, created_at, expires_at, robots';
export function newJobValues(j: NewJob): (string | boolean | null)[] {
  return [
    j.id,
    j.kind,
    j.team,
    j.keyId,
    j.url,
    j.options,
    j.webhook,
    j.status,
    j.zeroDataRetention,
    j.createdAt,
    j.expiresAt,
    j.robots,
  ];
}

type Time = string | Date;
const text = (t: Time): string => (t instanceof Date ? t.toISOString() : t);
const textOrNull = (t: Time | null): string | null => (t === null ? null : text(t));

export interface JobRow {
  id: string;
  kind: JobRecord['kind'];
  team: string;
  key_id: string;
  url: string | null;
  options: string;
  webhook: string | null;
  status: JobStatus;
  zero_data_retention: number | boolean;
  created_at: Time;
  completed_at: Time | null;
  expires_at: Time;
  kickoff_done: number | boolean;
  robots: string | null;
  error: string | null;
  lease_owner: string | null;
  lease_until: Time | null;
  result: string | null;
}

export function jobFromRow(r: JobRow): JobRecord {
  return {
    id: r.id,
    kind: r.kind,
    team: r.team,
    keyId: r.key_id,
    url: r.url,
    options: r.options,
    webhook: r.webhook,
    status: r.status,
    zeroDataRetention: Boolean(r.zero_data_retention),
    createdAt: text(r.created_at),
    completedAt: textOrNull(r.completed_at),
    expiresAt: text(r.expires_at),
    kickoffDone: Boolean(r.kickoff_done),
    robots: r.robots,
    error: r.error,
    leaseOwner: r.lease_owner,
    leaseUntil: textOrNull(r.lease_until),
    result: r.result,
  };
}

const jobPatchColumns: Record<keyof JobPatch, string> = {
  status: 'status',
  completedAt: 'completed_at',
  kickoffDone: 'kickoff_done',
  robots: 'robots',
  error: 'error',
  url: 'url',
  result: 'result',
};

/**
 * The UPDATE for the patched columns of job `id` (undefined: left as they are), or undefined when
 * the patch changes nothing; `param(i)` writes the i-th (1-based) parameter as the database spells it.
 */
export function updateJobSql(
  id: string,
  patch: JobPatch,
  param: (i: number) => string,
): { sql: string; values: (string | boolean | null)[] } | undefined {
  const set = (Object.keys(jobPatchColumns) as (keyof JobPatch)[]).filter((k) => patch[k] !== undefined);
  if (set.length === 0) return undefined;
  const assignments = set.map((k, i) => `${jobPatchColumns[k]} = ${param(i + 1)}`);
  return {
    sql: `UPDATE jobs SET ${assignments.join(', ')} WHERE id = ${param(set.length + 1)}`,
    values: [...set.map((k) => patch[k] ?? null), id],
  };
}

/** The job_pages columns a PageRecord is read from. */
export const PAGE_COLUMNS = 'seq, id, job_id, key, url, depth, state, attempts';

export interface PageRow {
  seq: number | string;
  id: string;
  job_id: string;
  key: string;
  url: string;
  depth: number;
  state: PageState;
  attempts: number;
}

export function pageFromRow(r: PageRow): PageRecord {
  return {
    id: r.id,
    jobId: r.job_id,
    seq: Number(r.seq),
    key: r.key,
    url: r.url,
    depth: r.depth,
    state: r.state,
    attempts: r.attempts,
  };
}

/** Pages by seq: RETURNING hands rows over in no promised order. */
export const bySeq = (a: PageRecord, b: PageRecord): number => a.seq - b.seq;

/** Every state's count from `SELECT state, count(*) ... GROUP BY state` (absent states: 0). */
export function pageCountsFrom(rows: readonly { state: PageState; n: number | string }[]): PageCounts {
  const counts: PageCounts = { queued: 0, active: 0, done: 0, failed: 0, blocked: 0, skipped: 0 };
  for (const r of rows) counts[r.state] = Number(r.n);
  return counts;
}

/** The webhook_deliveries columns, in WebhookDelivery's order. */
export const WEBHOOK_COLUMNS = 'id, job_id, url, headers, body, attempts, next_at';

export interface WebhookRow {
  id: string;
  job_id: string;
  url: string;
  headers: string;
  body: string;
  attempts: number;
  next_at: Time;
}

export function webhookFromRow(r: WebhookRow): WebhookDelivery {
  return {
    id: r.id,
    jobId: r.job_id,
    url: r.url,
    headers: r.headers,
    body: r.body,
    attempts: r.attempts,
    nextAt: text(r.next_at),
  };
}

export function webhookValues(d: WebhookDelivery): (string | number)[] {
  return [d.id, d.jobId, d.url, d.headers, d.body, d.attempts, d.nextAt];
}

/** enqueuePages' cap as its SQL takes it: an integer, or null for none (Infinity). */
export const capValue = (cap: number): number | null =>
  cap === Number.POSITIVE_INFINITY ? null : Math.floor(cap);
