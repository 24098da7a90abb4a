import type { FastifyInstance } from 'fastify';
import { previewRequestSchema } from '../../crawl/crawl-options.ts';
import { previewCrawlOptions } from '../../crawl/preview.ts';
import { readPromptByRules } from '../../crawl/prompt-rules.ts';
import { siteStructure } from '../../crawl/site-structure.ts';
import { type LanguageModel, ModelError } from '../../enrich/llm/provider.ts';
import { ApiError, badRequest } from '../../errors.ts';
import { limits } from '../../limits.ts';
import { describeIssue } from '../../options/validate.ts';
import { deadline } from '../../pipeline/deadline.ts';
import type { Credits } from '../../quota/credits.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import type { ResolveAll } from '../../scrape/vetted-address.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';

export interface CrawlPreviewRouteDeps {
  model: LanguageModel | undefined;
  /** Whose ledger the model's tokens are added to. */
  credits: Credits;
  uploads: UploadBudget;
  policy: NetPolicy;
  /** How host names are resolved: the system's, unless a test maps names of its own to loopback. */
  resolveAll?: ResolveAll;
}

/** Upstream's answer whenever the prompt cannot be turned into options, a missing model included. */
const notProcessed = () =>
  new ApiError(400, undefined, 'Failed to process natural language prompt. Please try rephrasing.');

const ruleWarning = (why: string) =>
  `${why}, so Quire's rule-based reader read the prompt: it knows common English phrasings only; check the options before crawling.`;

/**
 * POST /v2/crawl/params-preview (behaviour doc §9): the crawl options a prompt implies, read by the
 * configured model beside the site's URLs, else by the rule-based reader with a top-level
 * `warning` (where the SDK's crawlParamsPreview() looks for one; `data` stays options a crawl
 * takes). A failing model falls back to the rules too, as summary and json fall back rather than
 * fail (behaviour doc, decision 7).
 */
export async function crawlPreviewRoutes(app: FastifyInstance, deps: CrawlPreviewRouteDeps): Promise<void> {
  app.post('/v2/crawl/params-preview', async (request, reply) => {
    const input = request.body ?? {};
    const parsed = previewRequestSchema.safeParse(input);
    if (!parsed.success) {
      const messages = parsed.error.issues.map((issue) => describeIssue('body', issue, input));
      throw badRequest(`Invalid request parameters: ${messages.join(', ')}`, parsed.error.issues);
    }
    const { url, prompt } = parsed.data;
    const hold = deps.uploads.open(request.principal!.team);
    reply.raw.once('close', hold.releaseAll);
    const clock = deadline(limits.previewTimeoutMs, 'crawl preview', request.raw.socket);
    try {
      const site = await siteStructure(url, {
        policy: deps.policy,
        resolveAll: deps.resolveAll,
        hold,
        signal: clock.signal,
      });
      let why = 'No language model is configured';
      const model = deps.credits.usage.modelFor(deps.model, request.principal!);
      if (model) {
        try {
          const options = await previewCrawlOptions(model, url, prompt, site, clock.signal);
          return { success: true, data: { url, ...options } };
        } catch (error) {
          if (!(error instanceof ModelError)) throw error;
          request.log.info({ reason: error.message }, 'crawl preview: the model gave no usable options');
          why = 'The language model gave no usable options';
        }
      }
      const options = readPromptByRules(url, prompt, site);
      if (!options) throw notProcessed();
      return { success: true, data: { url, ...options }, warning: ruleWarning(why) };
    } finally {
      clock.done();
    }
  });
}
