/**
 * Where crawls and batch scrapes keep everything: the job, its frontier (every URL it has seen,
 * once, by key), its finished documents in completion order, its errors and its webhook events
 * not yet delivered. SQLite in embedded mode, PostgreSQL in a cluster, so that any process may
 * die and another carries the job on, and every API process answers its status.
 */

/**
 * A batch scrape is a crawl without discovery: a list of URLs given up front. An extract is a
 * batch whose options carry `extract` (JobOptions): its pages' answers merged into `result`.
 */
export type JobKind = 'crawl' | 'batch';

/** Upstream's statuses; `failed` only when the job could not start at all. */
export type JobStatus = 'scraping' | 'completed' | 'cancelled' | 'failed';

export interface JobRecord {
  /** UUIDv7. */
  id: string;
  kind: JobKind;
  team: string;
  keyId: string;
  /** The crawl's start URL (as normalised at creation); null for a batch. */
  url: string | null;
  /** The request's options as the job runs them (crawler options and scrapeOptions), JSON text. */
  options: string;
  /** The webhook request object, JSON text; null without one. */
  webhook: string | null;
  status: JobStatus;
  zeroDataRetention: boolean;
  createdAt: string;
  completedAt: string | null;
  /** When the job and its pages are purged; each read of the job slides it forward. */
  expiresAt: string;
  /** Set once discovery from the start (robots.txt, sitemaps, seed) is done and queued. */
  kickoffDone: boolean;
  /** The robots.txt body read at creation; null when there was none, or it is not used. */
  robots: string | null;
  /** Why the job failed to start (status failed). */
  error: string | null;
  /** The process that drives the job (claims its pages, queues its links), and until when. */
  leaseOwner: string | null;
  leaseUntil: string | null;
  /** An ended extract's answer (ExtractResult, JSON text); null for anything else. */
  result: string | null;
}

export type NewJob = Omit<
  JobRecord,
  'completedAt' | 'kickoffDone' | 'error' | 'leaseOwner' | 'leaseUntil' | 'result'
>;

export type JobPatch = Partial<
  Pick<JobRecord, 'status' | 'completedAt' | 'kickoffDone' | 'robots' | 'error' | 'url' | 'result'>
>;

/**
 * queued → active → done | failed. `blocked`: robots.txt forbids it (never fetched, listed in
 * the errors' robotsBlocked). `skipped`: refused without a fetch for a reason errors need not
 * list (the limit, the job ending); such rows still hold their key so the URL is not queued again.
 */
export type PageState = 'queued' | 'active' | 'done' | 'failed' | 'blocked' | 'skipped';

export interface PageRecord {
  /** UUID: the page's scrapeId, and its id in the errors. */
  id: string;
  jobId: string;
  /** Insertion order within the store, ascending: the frontier's order. */
  seq: number;
  /** The frontier's dedupe key: one row per key per job. */
  key: string;
  url: string;
  /** Link hops from the start (sitemap URLs and the seed: 0). */
  depth: number;
  state: PageState;
  /** How many times the page was claimed (a driver that died mid-page gives it a second). */
  attempts: number;
}

export interface NewPage {
  key: string;
  url: string;
  depth: number;
  /** blocked: robots.txt forbids it; skipped: another page stands for it (its canonical copy). */
  state?: 'queued' | 'blocked' | 'skipped';
}

export interface PageError {
  /** The page's id. */
  id: string;
  timestamp: string;
  url: string;
  code: string | null;
  error: string;
}

export interface PageCounts {
  queued: number;
  active: number;
  done: number;
  failed: number;
  blocked: number;
  skipped: number;
}

/** A webhook event waiting to be delivered (or retried). */
export interface WebhookDelivery {
  /** UUID, also the event's `webhookId`. */
  id: string;
  jobId: string;
  /** The receiver's URL. */
  url: string;
  /** The request's headers, JSON text of a string record. */
  headers: string;
  /** The exact JSON body to POST (and sign). */
  body: string;
  attempts: number;
  /** When it is next due (ISO). */
  nextAt: string;
}

export interface JobStore {
  createJob(job: NewJob): Promise<void>;
  getJob(id: string): Promise<JobRecord | undefined>;
  /** The team's jobs of `kind` whose status is scraping, oldest first. */
  listActiveJobs(team: string, kind: JobKind): Promise<JobRecord[]>;
  updateJob(id: string, patch: JobPatch): Promise<void>;
  /** scraping → cancelled, in one statement; the status it had before (undefined: no such job). */
  cancelJob(id: string, at: string): Promise<JobStatus | undefined>;
  /** Move the job's expiry to `expiresAt` (reads slide it, as upstream's do). */
  touchJob(id: string, expiresAt: string): Promise<void>;
  /**
   * Take the driver's lease on a job in status scraping whose lease is free or ended before
   * `now` (any such job, or only `id`), in one statement so two processes never both drive it.
   */
  leaseJob(owner: string, now: string, until: string, id?: string): Promise<JobRecord | undefined>;
  /** Extend a lease this owner holds; false when it holds it no longer. */
  renewLease(id: string, owner: string, until: string): Promise<boolean>;
  releaseLease(id: string, owner: string): Promise<void>;
  /**
   * Add the pages whose key the job has not seen, in order, while the job holds fewer than `cap`
   * pages that are queued, active or done (a failed page frees its slot); queued pages beyond the
   * cap are not stored, blocked and skipped ones always are. Returns the rows added.
   */
  enqueuePages(jobId: string, pages: readonly NewPage[], cap: number): Promise<PageRecord[]>;
  /** Move up to `n` queued pages to active, in seq order, counting an attempt on each. */
  claimPages(jobId: string, n: number): Promise<PageRecord[]>;
  /** Put the job's active pages back in the queue (their driver died), or only `pageId` (its turn comes again); how many. */
  requeueActive(jobId: string, pageId?: string): Promise<number>;
  /** active → done with its document (the data object's JSON, as the job keeps it) and what it cost. */
  completePage(pageId: string, document: Buffer, credits: number, at: string): Promise<void>;
  /** active → failed; `hidden` errors are not listed by readErrors. */
  failPage(
    pageId: string,
    error: { code: string | null; message: string; hidden?: boolean },
    at: string,
  ): Promise<void>;
  /** Every queued page of the job → skipped (a cancelled or finished job); how many. */
  skipQueued(jobId: string): Promise<number>;
  pageCounts(jobId: string): Promise<PageCounts>;
  /** The sum of the done pages' credits. */
  creditsUsed(jobId: string): Promise<number>;
  /** Documents in completion order, from the `skip`-th, at most `limit`. */
  readDocuments(jobId: string, skip: number, limit: number): Promise<Buffer[]>;
  /** How many documents the job has finished (and, under zero data retention, not yet handed over). */
  countDocuments(jobId: string): Promise<number>;
  /**
   * Zero data retention's reading: the oldest documents, at most `limit` and `maxBytes` together
   * (the first whatever its size), removed in the same step, so each is handed over once and
   * then no longer kept, even to two readers at once.
   */
  takeDocuments(jobId: string, limit: number, maxBytes: number): Promise<Buffer[]>;
  readErrors(jobId: string): Promise<{ errors: PageError[]; robotsBlocked: string[] }>;
  /** Delete jobs (pages, documents, deliveries) whose expiry is before `now`; how many jobs. */
  purgeJobs(now: string): Promise<number>;
  queueWebhook(delivery: WebhookDelivery): Promise<void>;
  /**
   * Take `owner`'s claim, until `until`, on at most `n` deliveries due at `now` (by next_at, then
   * the order they were queued), in one step so that two processes never both take one. Only
   * the oldest delivery of each job can be taken, and not while another claim on it lasts: a
   * job's events go one at a time, in the order they were queued.
   */
  claimWebhooks(owner: string, now: string, until: string, n: number): Promise<WebhookDelivery[]>;
  /** Delivered, or given up on: removed (the job's next event can then be claimed). */
  removeWebhook(id: string): Promise<void>;
  /** A failed attempt: count it, set when the next is due and drop the claim. */
  retryWebhook(id: string, attempts: number, nextAt: string): Promise<void>;
}
