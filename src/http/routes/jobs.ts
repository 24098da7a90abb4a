import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { previewCrawlOptions } from '../../crawl/preview.ts';
import { readPromptByRules } from '../../crawl/prompt-rules.ts';
import { siteStructure } from '../../crawl/site-structure.ts';
import type { LanguageModel } from '../../enrich/llm/provider.ts';
import { ApiError, badRequest } from '../../errors.ts';
import { type CrawlRequest, validateBatchBody, validateCrawlBody } from '../../jobs/job-requests.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { activeEntry, jobNotFound, statusBody, statusPage, teamJob } from '../../jobs/job-status.ts';
import type { NewPage } from '../../jobs/job-store.ts';
import { type NewJobSpec, newJob } from '../../jobs/new-job.ts';
import { limits } from '../../limits.ts';
import { reserveCredits } from '../../pipeline/convert-to-answer.ts';
import { deadline } from '../../pipeline/deadline.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import type { Account } from '../../quota/usage.ts';
import type { ResolveAll } from '../../scrape/vetted-address.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';
import type { Store } from '../../store/store.ts';
import { publicBase } from './interact.ts';

export interface JobRouteDeps {
  store: Store;
  runner: JobRunner;
  credits: Credits;
  teams: TeamSettingsCache;
  uploads: UploadBudget;
  policy: NetPolicy;
  /** How host names are resolved: the system's, unless a test maps names of its own to loopback. */
  resolveAll?: ResolveAll;
  model: LanguageModel | undefined;
  config: Config;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** 402 unless the team can pay for a page; its balance (undefined: unmetered). */
export async function balanceFor(deps: JobRouteDeps, account: Account): Promise<number | undefined> {
  const probe = await reserveCredits(deps.credits, account);
  await probe.release();
  return (await deps.store.getTeam(account.team))?.credits ?? undefined;
}

/**
 * The options a crawl's prompt implies (the configured model, else the rule-based reader, as
 * params-preview reads them), filling only what the request left unset (upstream's rule).
 */
async function applyPrompt(
  deps: JobRouteDeps,
  request: FastifyRequest,
  crawl: CrawlRequest,
): Promise<Record<string, unknown> | undefined> {
  if (!crawl.prompt) return undefined;
  const hold = deps.uploads.open(request.principal!.team);
  const clock = deadline(limits.previewTimeoutMs, 'crawl prompt', request.raw.socket);
  try {
    const site = await siteStructure(crawl.url, {
      policy: deps.policy,
      resolveAll: deps.resolveAll,
      hold,
      signal: clock.signal,
    });
    const model = deps.credits.usage.modelFor(deps.model, request.principal!);
    const derived =
      (model &&
        (await previewCrawlOptions(model, crawl.url, crawl.prompt, site, clock.signal).catch(
          () => undefined,
        ))) ||
      readPromptByRules(crawl.url, crawl.prompt, site);
    if (!derived)
      throw new ApiError(
        400,
        undefined,
        'Failed to process natural language prompt. Please try rephrasing or use explicit crawler options.',
      );
    const crawler = crawl.options.crawler as unknown as Record<string, unknown>;
    const used: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(derived)) {
      if (crawl.given.has(key) || value === undefined) continue;
      used[key] = value;
      if (key === 'scrapeOptions')
        crawl.options.scrapeOptions = { ...crawl.options.scrapeOptions, ...(value as object) };
      else crawler[key] = value;
    }
    return used;
  } finally {
    clock.done();
    hold.releaseAll();
  }
}

/** Job routes answer the page of a job however they were reached: crawl and batch ids share one store. */
async function status(deps: JobRouteDeps, request: FastifyRequest, reply: FastifyReply, path: string) {
  const { id } = request.params as { id: string };
  const job = await teamJob(deps.store.jobs, id, request.principal!.team);
  const page = statusPage(request.query as Record<string, unknown>);
  const body = await statusBody(
    deps.store.jobs,
    job,
    page,
    `${publicBase(deps.config, request).http}${path}/${job.id}`,
  );
  reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
  return body;
}

async function cancel(deps: JobRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  const { id } = request.params as { id: string };
  const job = await teamJob(deps.store.jobs, id, request.principal!.team);
  const before = await deps.store.jobs.cancelJob(job.id, iso(Date.now()));
  if (before === undefined) throw jobNotFound();
  if (before === 'completed')
    return reply.code(409).send({ success: false, error: 'Crawl is already completed' });
  deps.runner.stop(job.id);
  return { success: true, status: 'cancelled' };
}

async function errors(deps: JobRouteDeps, request: FastifyRequest) {
  const { id } = request.params as { id: string };
  const job = await teamJob(deps.store.jobs, id, request.principal!.team);
  return deps.store.jobs.readErrors(job.id);
}

/** A new job of the caller's in the store, then driven by this process at once (any other may carry it on). */
export function createJob(deps: JobRouteDeps, request: FastifyRequest, job: NewJobSpec): Promise<string> {
  return newJob(deps.store.jobs, request.principal!, job);
}

/**
 * Whether the job runs under zero data retention, asked or forced by the team's policy (403 when
 * the team forbids it): its pages are converted as a parse under it is, and each document is kept
 * only until it is handed over (JobStore.takeDocuments).
 */
async function jobZdr(deps: JobRouteDeps, team: string, asked: boolean): Promise<boolean> {
  return underZdrPolicy({ zeroDataRetention: asked }, (await deps.teams.get(team)).zdr).zeroDataRetention;
}

/**
 * Crawl (POST /v2/crawl, its status, cancel, errors and the active list) and batch scrape
 * (POST /v2/batch/scrape and the same three), as asynchronous jobs (src/jobs/job-runner.ts)
 * with upstream's shapes (jobs-and-formats §1, §2, §6).
 */
export async function jobRoutes(app: FastifyInstance, deps: JobRouteDeps): Promise<void> {
  app.post('/v2/crawl', async (request) => {
    const crawl = validateCrawlBody(request.body);
    const team = request.principal!.team;
    const zeroDataRetention = await jobZdr(deps, team, crawl.zeroDataRetention);
    const balance = await balanceFor(deps, request.principal!);
    const promptGeneratedOptions = await applyPrompt(deps, request, crawl);
    const crawler = crawl.options.crawler!;
    // Upstream clamps the limit to what the team can pay for.
    if (balance !== undefined) crawler.limit = Math.max(1, Math.min(crawler.limit, balance));
    const base = publicBase(deps.config, request).http;
    const scrapeOptions = crawl.options.scrapeOptions;
    const id = await createJob(deps, request, {
      kind: 'crawl',
      url: crawl.url,
      options: { crawler, scrapeOptions, maxConcurrency: crawler.maxConcurrency, base },
      webhook: crawl.webhook,
      zeroDataRetention,
    });
    deps.runner.kick(id);
    return {
      success: true,
      id,
      url: `${base}/v2/crawl/${id}`,
      ...(promptGeneratedOptions
        ? { promptGeneratedOptions, finalCrawlerOptions: { ...crawler, scrapeOptions } }
        : {}),
    };
  });
  for (const path of ['/v2/crawl/active', '/v2/crawl/ongoing']) {
    app.get(path, async (request) => {
      const jobs = await deps.store.jobs.listActiveJobs(request.principal!.team, 'crawl');
      return { success: true, crawls: jobs.map(activeEntry) };
    });
  }

  app.post('/v2/batch/scrape', async (request) => {
    const batch = validateBatchBody(request.body);
    const team = request.principal!.team;
    const zeroDataRetention = await jobZdr(deps, team, batch.zeroDataRetention);
    await balanceFor(deps, request.principal!);
    const base = publicBase(deps.config, request).http;
    let id: string;
    if (batch.appendToId) {
      const job = await teamJob(deps.store.jobs, batch.appendToId, team);
      if (job.kind !== 'batch') throw jobNotFound();
      // The batch's documents are kept one way: its own.
      if (job.zeroDataRetention !== zeroDataRetention)
        throw badRequest(
          `body.zeroDataRetention: the batch ${job.id} runs ${job.zeroDataRetention ? 'under' : 'without'} zero data retention; URLs appended to it must too`,
        );
      id = job.id;
      if (job.status !== 'scraping')
        await deps.store.jobs.updateJob(id, { status: 'scraping', completedAt: null });
    } else {
      const scrapeOptions = batch.options.scrapeOptions;
      id = await createJob(deps, request, {
        kind: 'batch',
        url: null,
        options: { crawler: null, scrapeOptions, maxConcurrency: batch.maxConcurrency, base },
        webhook: batch.webhook,
        zeroDataRetention,
      });
    }
    // Duplicates are scraped as often as listed, as upstream does: each entry is its own page.
    const pages: NewPage[] = batch.urls.map((url) => ({ key: randomUUID(), url, depth: 0 }));
    await deps.store.jobs.enqueuePages(id, pages, Number.POSITIVE_INFINITY);
    await deps.store.jobs.updateJob(id, { kickoffDone: true });
    deps.runner.kick(id);
    return {
      success: true,
      id,
      url: `${base}/v2/batch/scrape/${id}`,
      ...(batch.invalidURLs ? { invalidURLs: batch.invalidURLs } : {}),
    };
  });

  for (const path of ['/v2/crawl', '/v2/batch/scrape']) {
    app.get(`${path}/:id`, (request, reply) => status(deps, request, reply, path));
    app.delete(`${path}/:id`, (request, reply) => cancel(deps, request, reply));
    app.get(`${path}/:id/errors`, (request) => errors(deps, request));
  }
}
