import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { StoredOptions } from './job-runner.ts';
import type { JobRecord, JobStore } from './job-store.ts';

/** Upstream's id check ([N]): anything but a UUID is refused before the store is asked. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const jobNotFound = () => new ApiError(404, undefined, 'Job not found');
const extractNotFound = () => new ApiError(404, undefined, 'Extract job not found');

/** The options a job runs by, as it stored them. */
export const optionsOf = (job: JobRecord): StoredOptions => JSON.parse(job.options) as StoredOptions;

/**
 * The team's job `id`; 404 for another team's as for none (a job id tells nobody else anything).
 * Extracts and the other jobs share the store but not their routes: each kind answers only to
 * its own (`extract`). Reading a job slides its expiry forward, as upstream's reads reset its TTL.
 */
export async function teamJob(jobs: JobStore, id: string, team: string, extract = false): Promise<JobRecord> {
  if (!UUID.test(id))
    throw new ApiError(400, undefined, 'Invalid job ID format. Job ID must be a valid UUID.');
  const job = await jobs.getJob(id.toLowerCase());
  const notFound = extract ? extractNotFound : jobNotFound;
  if (!job || job.team !== team) throw notFound();
  if ((optionsOf(job).extract !== undefined) !== extract) throw notFound();
  const expiresAt = new Date(Date.now() + limits.jobRetentionMs).toISOString();
  await jobs.touchJob(job.id, expiresAt);
  return { ...job, expiresAt };
}

export interface StatusPage {
  skip: number;
  limit: number;
  /** The limit as the caller gave it, repeated in `next`. */
  givenLimit: number | undefined;
}

/** ?skip and ?limit, checked as upstream's latest pagination does. */
export function statusPage(query: Record<string, unknown>): StatusPage {
  const read = (name: string, min: number, max: number): number | undefined => {
    const raw = query[name];
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ApiError(
        400,
        undefined,
        `Invalid pagination: ${name} must be an integer from ${min}${max < Infinity ? ` to ${max}` : ''}.`,
      );
    return n;
  };
  const skip = read('skip', 0, Infinity) ?? 0;
  const givenLimit = read('limit', 1, limits.jobStatusMaxPage);
  return { skip, limit: givenLimit ?? limits.jobStatusPage, givenLimit };
}

/** `expiresAt` as upstream writes it: milliseconds zeroed. */
const seconds = (isoTime: string) => `${isoTime.slice(0, 19)}.000Z`;

/**
 * The status body, spliced from the stored documents' bytes (never parsed and re-encoded): the
 * counts, a page of documents in completion order at most limits.jobStatusBytes long, and
 * `next` only when finished documents remain beyond this page. Under zero data retention an
 * ended job's documents are taken out of the store as they are handed over (`skip` has nothing
 * to count then), as upstream removes a zero-data-retention job's document once it is read. (Upstream's newer `next`, present
 * while the job runs, makes SDK 4.42 follow it until the job ends: one status call that blocks.)
 */
export async function statusBody(
  jobs: JobStore,
  job: JobRecord,
  page: StatusPage,
  nextBase: string,
): Promise<Buffer> {
  // Under zero data retention nothing is handed over while the job runs: the SDKs' waiters drop
  // what a running job's status holds and keep the final one's.
  const kept = !job.zeroDataRetention
    ? withinBytes(await jobs.readDocuments(job.id, page.skip, page.limit))
    : job.status === 'scraping'
      ? []
      : await jobs.takeDocuments(job.id, page.limit, limits.jobStatusBytes);
  const [counts, creditsUsed, finished] = await Promise.all([
    jobs.pageCounts(job.id),
    jobs.creditsUsed(job.id),
    jobs.countDocuments(job.id),
  ]);
  const head: Record<string, unknown> = {
    success: true,
    status: job.status,
    completed: counts.done,
    total: counts.done + counts.queued + counts.active,
    creditsUsed,
    expiresAt: seconds(job.expiresAt),
  };
  const limit = page.givenLimit !== undefined ? `limit=${page.givenLimit}` : '';
  if (job.zeroDataRetention) {
    // What was handed over is gone, so the rest starts at the first again.
    if (finished > 0 && job.status !== 'scraping') head.next = `${nextBase}${limit ? `?${limit}` : ''}`;
  } else {
    const after = page.skip + kept.length;
    if (finished > after) head.next = `${nextBase}?skip=${after}${limit ? `&${limit}` : ''}`;
  }
  if (job.status !== 'scraping' && counts.blocked > 0)
    head.warning =
      'One or more pages were unable to be crawled because the robots.txt file prevented this. GET /v2/crawl/{id}/errors lists them under robotsBlocked; ignoreRobotsTxt crawls them.';
  const text = JSON.stringify(head);
  const parts: Buffer[] = [Buffer.from(`${text.slice(0, -1)},"data":[`)];
  kept.forEach((document, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(document);
  });
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/** The first of `documents` that fit in limits.jobStatusBytes together (the first whatever its size). */
function withinBytes(documents: Buffer[]): Buffer[] {
  const kept: Buffer[] = [];
  let bytes = 0;
  for (const document of documents) {
    if (kept.length > 0 && bytes + document.length > limits.jobStatusBytes) break;
    kept.push(document);
    bytes += document.length + 1;
  }
  return kept;
}

/** One entry of GET /v2/crawl/active, in upstream's mixed casing. */
export function activeEntry(job: JobRecord): object {
  const options = optionsOf(job);
  return {
    id: job.id,
    teamId: job.team,
    url: job.url,
    created_at: job.createdAt,
    options: { ...options.crawler, scrapeOptions: options.scrapeOptions },
  };
}
