import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../errors.ts';
import type { ExtractResult } from '../../jobs/extract-answer.ts';
import {
  type ExtractSpec,
  isWildcard,
  pageFormats,
  validateExtractBody,
} from '../../jobs/extract-request.ts';
import { teamJob } from '../../jobs/job-status.ts';
import { publicBase } from './interact.ts';
import { balanceFor, createJob, type JobRouteDeps } from './jobs.ts';

/** `expiresAt` as upstream writes it: milliseconds zeroed. */
const seconds = (isoTime: string) => `${isoTime.slice(0, 19)}.000Z`;

/** Upstream's extract statuses: its jobs "process" where crawls "scrape". */
const statusName = {
  scraping: 'processing',
  completed: 'completed',
  cancelled: 'cancelled',
  failed: 'failed',
};

/**
 * POST /v2/extract and GET /v2/extract/{id} (jobs-and-formats §7): an extract is a batch scrape
 * whose pages are each read for the prompt and schema (the model's json when one is configured,
 * else the offline extractor's, else the sentences that answer the prompt) and merged into one
 * value with its sources when it ends (src/jobs/extract-answer.ts).
 */
export async function extractRoutes(app: FastifyInstance, deps: JobRouteDeps): Promise<void> {
  app.post('/v2/extract', async (request) => {
    const extract = validateExtractBody(request.body);
    const principal = request.principal!;
    // Upstream's words: an extract keeps its pages until it ends, which a forced policy forbids.
    if ((await deps.teams.get(principal.team)).zdr === 'forced')
      throw badRequest(
        'Your team has zero data retention enabled. This is not supported on extract. Please contact support if you need this.',
      );
    if (extract.scrapeOptions.zeroDataRetention === true)
      throw badRequest(
        'body.scrapeOptions.zeroDataRetention: an extract keeps its pages until it ends, so it cannot run under zero data retention.',
      );
    await balanceFor(deps, principal);
    const model = deps.credits.usage.modelFor(deps.model, principal);
    const spec: ExtractSpec = {
      ...extract.spec,
      reading: extract.spec.schema || model ? 'json' : 'question',
      deadline:
        extract.timeout === undefined ? undefined : new Date(Date.now() + extract.timeout).toISOString(),
    };
    const id = await createJob(deps, request, {
      kind: 'batch',
      url: null,
      options: {
        crawler: null,
        scrapeOptions: { ...extract.scrapeOptions, formats: pageFormats(spec) },
        maxConcurrency: undefined,
        base: publicBase(deps.config, request).http,
        extract: spec,
      },
      webhook: undefined,
      zeroDataRetention: false,
    });
    const given = spec.urls.filter((url) => !isWildcard(url));
    await deps.store.jobs.enqueuePages(
      id,
      given.map((url) => ({ key: url, url, depth: 0 })),
      Number.POSITIVE_INFINITY,
    );
    deps.runner.kick(id);
    return {
      success: true,
      id,
      urlTrace: [],
      ...(extract.invalidURLs.length > 0 ? { invalidURLs: extract.invalidURLs } : {}),
    };
  });

  app.get('/v2/extract/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const job = await teamJob(deps.store.jobs, id, request.principal!.team, true);
    const result = job.result ? (JSON.parse(job.result) as ExtractResult) : undefined;
    reply.header('cache-control', 'no-store');
    // Upstream answers 200 whatever the status; `success` is false only for a failed extract.
    return {
      success: job.status !== 'failed',
      status: statusName[job.status],
      data: result ? result.data : [],
      ...(job.error ? { error: job.error } : {}),
      expiresAt: seconds(job.expiresAt),
      creditsUsed: await deps.store.jobs.creditsUsed(job.id),
      ...(result && result.warnings.length > 0 ? { warnings: result.warnings } : {}),
      ...(result?.sources ? { sources: result.sources } : {}),
    };
  });
}
