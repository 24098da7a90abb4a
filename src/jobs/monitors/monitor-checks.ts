import { randomUUID } from 'node:crypto';
import { limits } from '../../limits.ts';
import type { Credits } from '../../quota/credits.ts';
import { uuidv7 } from '../../sessions/tokens.ts';
import { validateCrawlBody } from '../job-requests.ts';
import type { JobRunner, StoredOptions } from '../job-runner.ts';
import type { JobStore } from '../job-store.ts';
import { newJob } from '../new-job.ts';
import type { WebhookEvent, WebhookSpec } from '../webhook-spec.ts';
import type { WebhookSender } from '../webhooks.ts';
import { baselineTag, checkFormats, type MonitorTarget } from './monitor-request.ts';
import type {
  CheckPageRecord,
  CheckRecord,
  MonitorRecord,
  MonitorStore,
  PageStatus,
} from './monitor-store.ts';

export interface CheckDeps {
  jobs: JobStore;
  monitors: MonitorStore;
  runner: JobRunner;
  credits: Credits;
  webhooks: WebhookSender | undefined;
  now(): number;
  log: { info(details: object, message: string): void; warn(details: object, message: string): void };
}

/** The job a check runs for one target. */
export interface TargetRun {
  targetId: string;
  type: MonitorTarget['type'];
  jobId: string;
}

export interface CheckSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const emptySummary = (): CheckSummary => ({
  totalPages: 0,
  same: 0,
  changed: 0,
  new: 0,
  removed: 0,
  error: 0,
});

/** The job options a target is checked with: its own, its pages compared under the monitor's tag. */
function targetJob(
  monitor: MonitorRecord,
  target: MonitorTarget,
): { kind: 'batch' | 'crawl'; options: StoredOptions } {
  const scrapeOptions = {
    ...target.scrapeOptions,
    formats: checkFormats(target.scrapeOptions.formats, baselineTag(monitor.id, target.id)),
  };
  if (target.type === 'scrape')
    return {
      kind: 'batch',
      options: { crawler: null, scrapeOptions, maxConcurrency: undefined, base: monitor.base },
    };
  const crawl = validateCrawlBody({ ...target.crawlOptions, url: target.url, scrapeOptions });
  return { kind: 'crawl', options: { ...crawl.options, base: monitor.base } };
}

/**
 * Starts a check of `monitor`, if it runs none (and, for a scheduled one, it is still due at
 * `due`: of every process that saw it due, one starts it): one job per target, driven by the
 * job runner as crawls and batch scrapes are. Undefined when another check runs, or another
 * process started this one.
 */
export async function startCheck(
  deps: CheckDeps,
  monitor: MonitorRecord,
  run: { trigger: 'scheduled' | 'manual'; due: string | null; nextRunAt: string | null },
): Promise<CheckRecord | undefined> {
  const now = deps.now();
  const checkId = uuidv7(now);
  const claimed = await deps.monitors.claimRun(monitor.id, {
    checkId,
    due: run.due,
    nextRunAt: run.nextRunAt,
    at: iso(now),
  });
  if (!claimed) return undefined;
  const check: CheckRecord = {
    id: checkId,
    monitorId: monitor.id,
    team: monitor.team,
    status: 'running',
    trigger: run.trigger,
    scheduledFor: run.due,
    startedAt: iso(now),
    finishedAt: null,
    actualCredits: null,
    summary: JSON.stringify(emptySummary()),
    targetResults: '[]',
    notificationStatus: null,
    error: null,
    createdAt: iso(now),
    updatedAt: iso(now),
  };
  const owner = { team: monitor.team, keyId: monitor.keyId };
  const probe = await deps.credits.reserve(owner);
  if (!probe) {
    await deps.monitors.createCheck({
      ...check,
      status: 'skipped_no_credits',
      finishedAt: iso(now),
      actualCredits: 0,
      error: 'The team had no credits left when the check was due.',
    });
    await deps.monitors.releaseRun(monitor.id, checkId);
    return deps.monitors.getCheck(checkId);
  }
  await probe.release();
  const runs: TargetRun[] = [];
  for (const target of JSON.parse(monitor.targets) as MonitorTarget[]) {
    const { kind, options } = targetJob(monitor, target);
    const jobId = await newJob(
      deps.jobs,
      owner,
      {
        kind,
        url: target.type === 'crawl' ? target.url : null,
        options,
        webhook: undefined,
        zeroDataRetention: false,
      },
      deps.now(),
    );
    if (target.type === 'scrape') {
      await deps.jobs.enqueuePages(
        jobId,
        target.urls.map((url) => ({ key: randomUUID(), url, depth: 0 })),
        Number.POSITIVE_INFINITY,
      );
      await deps.jobs.updateJob(jobId, { kickoffDone: true });
    }
    runs.push({ targetId: target.id, type: target.type, jobId });
  }
  // Written with its jobs, so that whoever finishes it sees them all.
  const started = { ...check, targetResults: JSON.stringify(runs) };
  await deps.monitors.createCheck(started);
  for (const r of runs) deps.runner.kick(r.jobId);
  deps.log.info({ monitor: monitor.id, check: checkId, trigger: run.trigger }, 'monitor check started');
  return started;
}

/** A page of a target's job, as its check lists it. */
function pageOf(
  checkId: string,
  targetId: string,
  document: Record<string, unknown>,
  at: string,
): CheckPageRecord {
  const metadata = (document.metadata ?? {}) as Record<string, unknown>;
  const tracking = document.changeTracking as { changeStatus?: PageStatus; diff?: string | null } | undefined;
  return {
    id: randomUUID(),
    checkId,
    targetId,
    url: String(metadata.sourceURL ?? metadata.url ?? ''),
    status: tracking?.changeStatus ?? 'error',
    statusCode: typeof metadata.statusCode === 'number' ? metadata.statusCode : null,
    error: tracking ? null : 'The page was read, but not compared with its last check.',
    diff: tracking?.diff ?? null,
    scrapeId: typeof metadata.scrapeId === 'string' ? metadata.scrapeId : null,
    createdAt: at,
  };
}

/** Whether every job of the check has ended. */
async function jobsEnded(jobs: JobStore, runs: TargetRun[]): Promise<boolean> {
  for (const run of runs) if ((await jobs.getJob(run.jobId))?.status === 'scraping') return false;
  return true;
}

/**
 * The pages a check found, target by target: each document's change status against the
 * target's last check (changeTracking under the monitor's tag), each failed page as an error, and
 * for a crawl the pages its last check found that this one did not, as removed.
 */
async function checkPages(
  deps: CheckDeps,
  check: CheckRecord,
  runs: TargetRun[],
): Promise<CheckPageRecord[]> {
  const at = iso(deps.now());
  const pages: CheckPageRecord[] = [];
  for (const run of runs) {
    const counts = await deps.jobs.pageCounts(run.jobId);
    const documents = await deps.jobs.readDocuments(run.jobId, 0, counts.done);
    const found = documents.map((bytes) =>
      pageOf(check.id, run.targetId, JSON.parse(bytes.toString('utf8')) as Record<string, unknown>, at),
    );
    const { errors } = await deps.jobs.readErrors(run.jobId);
    for (const e of errors)
      found.push({
        id: randomUUID(),
        checkId: check.id,
        targetId: run.targetId,
        url: e.url,
        status: 'error',
        statusCode: null,
        error: e.error,
        diff: null,
        scrapeId: null,
        createdAt: at,
      });
    if (run.type === 'crawl') {
      const seen = new Set(found.map((p) => p.url));
      for (const url of await deps.monitors.lastCheckUrls(check.monitorId, run.targetId, check.createdAt))
        if (!seen.has(url))
          found.push({
            id: randomUUID(),
            checkId: check.id,
            targetId: run.targetId,
            url,
            status: 'removed',
            statusCode: null,
            error: null,
            diff: null,
            scrapeId: null,
            createdAt: at,
          });
    }
    pages.push(...found);
  }
  return pages;
}

function summarise(pages: CheckPageRecord[]): CheckSummary {
  const summary = emptySummary();
  for (const page of pages) summary[page.status]++;
  summary.totalPages = pages.length;
  return summary;
}

/** The webhook events a finished check sends: `completed` always, `changed` when a page is new, changed or removed. */
async function notify(
  deps: CheckDeps,
  monitor: MonitorRecord,
  check: CheckRecord,
  runs: TargetRun[],
  pages: CheckPageRecord[],
  summary: CheckSummary,
): Promise<object> {
  if (!monitor.webhook || !deps.webhooks || runs.length === 0) return { webhook: 'none' };
  const webhook = JSON.parse(monitor.webhook) as WebhookSpec;
  const changed = pages.filter((p) => p.status === 'new' || p.status === 'changed' || p.status === 'removed');
  const wanted: WebhookEvent[] = changed.length > 0 ? ['completed', 'changed'] : ['completed'];
  const events = wanted.filter((e) => webhook.events.includes(e));
  const data = {
    monitorId: monitor.id,
    checkId: check.id,
    status: check.status,
    summary,
    pages: changed.slice(0, limits.monitorWebhookPages).map((p) => ({
      url: p.url,
      status: p.status,
      targetId: p.targetId,
      diff: p.diff === null ? null : { text: p.diff },
    })),
  };
  for (const event of events)
    await deps.webhooks.emit({ id: monitor.id, kind: 'monitor', webhook, outbox: runs[0]!.jobId }, event, {
      success: check.status !== 'failed',
      data: JSON.stringify([data]),
    });
  return { webhook: events.length > 0 ? 'queued' : 'not_requested', events };
}

/**
 * Finishes a check whose jobs have all ended, if no other process does: its pages written, its
 * summary and credits set, its webhook events queued, the monitor free for its next check and
 * its checks older than its retention purged. False while its jobs still run (or another
 * process took it).
 */
export async function finishCheck(deps: CheckDeps, check: CheckRecord): Promise<boolean> {
  const runs = JSON.parse(check.targetResults) as TargetRun[];
  const monitor = await deps.monitors.getMonitor(check.monitorId);
  if (monitor && !(await jobsEnded(deps.jobs, runs))) return false;
  if (!(await deps.monitors.claimFinish(check, iso(deps.now())))) return false;
  if (!monitor) return true;
  const pages = await checkPages(deps, check, runs);
  const summary = summarise(pages);
  const credits = (await Promise.all(runs.map((r) => deps.jobs.creditsUsed(r.jobId)))).reduce(
    (a, b) => a + b,
    0,
  );
  const status =
    pages.length > 0 && summary.error === pages.length
      ? 'failed'
      : summary.error > 0
        ? 'partial'
        : 'completed';
  await deps.monitors.setCheckPages(check.id, pages);
  const at = iso(deps.now());
  const ended: CheckRecord = {
    ...check,
    status,
    finishedAt: at,
    actualCredits: credits,
    summary: JSON.stringify(summary),
    error: status === 'failed' ? 'No page could be read.' : null,
    updatedAt: at,
  };
  const notificationStatus = await notify(deps, monitor, ended, runs, pages, summary).catch(
    (err: unknown) => {
      deps.log.warn({ err, monitor: monitor.id }, 'monitors: webhook event not queued');
      return { webhook: 'failed' };
    },
  );
  await deps.monitors.updateCheck(check.id, {
    status,
    finishedAt: at,
    actualCredits: credits,
    summary: ended.summary,
    error: ended.error,
    notificationStatus: JSON.stringify(notificationStatus),
    updatedAt: at,
  });
  await deps.monitors.updateMonitor(monitor.id, { lastCheckSummary: ended.summary });
  await deps.monitors.releaseRun(monitor.id, check.id);
  await deps.monitors.purgeChecks(monitor.id, iso(deps.now() - monitor.retentionDays * 86_400_000));
  deps.log.info({ monitor: monitor.id, check: check.id, status, ...summary }, 'monitor check finished');
  return true;
}
