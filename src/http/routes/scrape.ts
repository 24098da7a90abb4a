import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { type ScrapeRequest, validateScrapeBody } from '../../options/scrape-options.ts';
import { type Deadline, deadline } from '../../pipeline/deadline.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import type { AdBlocker } from '../../scrape/ad-filter.ts';
import { fetchBusy } from '../../scrape/fetch-errors.ts';
import { type FetchContext, type FetchedPage, fetchUrl } from '../../scrape/fetch-url.ts';
import { pageInput } from '../../scrape/page-input.ts';
import { isAppShell } from '../../scrape/render/needs-render.ts';
import { type RenderedPage, renderPage } from '../../scrape/render/render-page.ts';
import type { ScrapeRenderer } from '../../scrape/render/renderer.ts';
import { type CacheHit, type CachePlan, cachePlan, type ScrapeCache } from '../../scrape/scrape-cache.ts';
import { type ResolveAll, systemResolve, vettedAddress } from '../../scrape/vetted-address.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';
import {
  type ConversionInput,
  type ConvertDeps,
  convertToAnswer,
  reserveCredits,
} from '../convert-upload.ts';
import { publicBase } from './interact.ts';

export interface ScrapeRouteDeps extends ConvertDeps {
  uploads: UploadBudget;
  teams: TeamSettingsCache;
  credits: Credits;
  /** Which hosts a scrape may reach (private and loopback ones only when the operator allows them). */
  policy: NetPolicy;
  resolveAll?: ResolveAll;
  renderer: ScrapeRenderer;
  config: Config;
  cache: ScrapeCache;
  /** The ad and tracker filter lists `blockAds` applies. */
  adBlocker: AdBlocker;
}

/** What the conversion reads: the fetched bytes, or the rendered DOM with the origin's own type in its metadata. */
function renderedInput(sourceURL: string, page: RenderedPage, context: FetchContext): ConversionInput {
  const bytes = Buffer.from(page.html);
  const over = context.hold.take(bytes.length);
  if (over) throw fetchBusy(over);
  // The DOM is serialised as UTF-8, whatever charset the origin's bytes were in.
  const input = pageInput(sourceURL, { ...page, contentType: 'text/html; charset=utf-8', bytes });
  return { ...input, origin: { ...input.origin!, contentType: page.contentType } };
}

/**
 * The page, rendered when it needs a browser: always for the options only a browser honours
 * (waitFor, mobile, actions, screenshot), else when the plain fetch brought back an app shell.
 * A document (PDF, DOCX, ...) is never rendered: the browser would only download it.
 */
async function pageOf(
  scrape: ScrapeRequest,
  deps: ScrapeRouteDeps,
  context: FetchContext,
  clock: Deadline,
  blockAds: boolean,
): Promise<{ input: ConversionInput; rendered?: RenderedPage }> {
  const render = async () => {
    const resolve = deps.resolveAll ?? systemResolve;
    // Loaded on the first render that blocks (seconds, once per list version; then read from disk).
    const ads = blockAds ? await deps.adBlocker.filter(clock.signal) : undefined;
    const job = {
      url: scrape.url,
      fetch: scrape.fetch,
      render: scrape.render,
      remaining: clock.remaining,
      signal: clock.signal,
      ads,
      vet: (url: URL) =>
        vettedAddress(url, deps.policy, resolve, clock.signal).then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof ApiError) return error;
            throw error;
          },
        ),
    };
    return deps.renderer.pool.withContext(clock.signal, (browserContext) => renderPage(browserContext, job));
  };
  if (scrape.render.required) {
    // Refused or unresolvable addresses fail here, before a browser is started for them.
    await vettedAddress(new URL(scrape.url), deps.policy, deps.resolveAll ?? systemResolve, clock.signal);
    const rendered = await render();
    if (rendered.kind === 'page')
      return { input: renderedInput(scrape.sourceURL, rendered, context), rendered };
  }
  const page: FetchedPage = await fetchUrl(scrape.url, scrape.fetch, context);
  if (!scrape.render.required && isAppShell(page)) {
    const rendered = await render();
    if (rendered.kind === 'page')
      return { input: renderedInput(scrape.sourceURL, rendered, context), rendered };
  }
  return { input: pageInput(scrape.sourceURL, page) };
}

/** The cached answer for the plan, if any; a cache that cannot be read is a miss, never a failed scrape. */
async function cachedAnswer(
  deps: ScrapeRouteDeps,
  plan: CachePlan,
  sourceURL: string,
  log: FastifyBaseLogger,
): Promise<CacheHit | undefined> {
  try {
    return await deps.cache.get(plan, sourceURL);
  } catch (err) {
    log.warn({ err }, 'scrape cache not read');
    return undefined;
  }
}

/**
 * Whether a fresh answer may be kept: only the origin's 2xx pages, so that a passing 404 or 500
 * does not stand in for the page for days (upstream's index, holding several entries per URL,
 * skips back to the newest 2xx one; this cache holds one). An answer whose model step failed
 * (summary, json or redactPII with a warning) is fetched again rather than kept with its gap.
 */
function cacheWorthy(
  deps: ScrapeRouteDeps,
  scrape: ScrapeRequest,
  status: number | undefined,
  body: Buffer,
): boolean {
  if (status === undefined || status < 200 || status > 299) return false;
  const modelShaped =
    deps.model !== undefined &&
    (scrape.options.formats.some((f) => f.type === 'summary' || f.type === 'json') ||
      scrape.options.redactPII !== false);
  if (!modelShaped) return true;
  const answer = JSON.parse(body.toString('utf8')) as { data?: { warning?: unknown } };
  return answer.data?.warning === undefined;
}

/**
 * POST /v2/scrape: fetch the URL over HTTP(S), then convert what came back exactly as an upload of
 * it would be (the same detection, worker pool and answer), with the page's own addresses and
 * status in its metadata; rendered in the browser pool when it needs one (see `pageOf`).
 */
export async function scrapeRoutes(app: FastifyInstance, deps: ScrapeRouteDeps): Promise<void> {
  app.post('/v2/scrape', async (request, reply) => {
    const scrape = validateScrapeBody(request.body);
    const options = underZdrPolicy(scrape.options, (await deps.teams.get(request.principal!.team)).zdr);
    request.audit = {
      action: 'scrape',
      username: options.auditMetadata?.username ?? null,
      zeroDataRetention: options.zeroDataRetention,
      // Under zero data retention even the address stays out of the audit log.
      filename: options.zeroDataRetention ? null : scrape.url,
    };
    // The fetched bytes count against the node's and the team's budget, as an upload's do.
    const hold = deps.uploads.open(request.principal!.team);
    reply.raw.once('close', hold.releaseAll);
    // Before anything is fetched; given back unless the scrape answers.
    const credit = await reserveCredits(deps.credits, request);
    const base = publicBase(deps.config, request).http;
    const plan = deps.cache.enabled
      ? cachePlan(request.principal!.team, scrape, options.zeroDataRetention, {
          model: deps.config.QUIRE_LLM_BASE_URL
            ? `${deps.config.QUIRE_LLM_BASE_URL} ${deps.config.QUIRE_LLM_MODEL}`
            : undefined,
          captureBase: base,
          adLists: deps.adBlocker.signature(),
        })
      : undefined;
    const hit = plan && (await cachedAnswer(deps, plan, scrape.sourceURL, request.log));
    if (hit) {
      try {
        await credit.settle(hit.creditsUsed);
      } finally {
        await credit.release();
      }
      reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
      return hit.body;
    }
    const clock = deadline(options.timeout, 'scrape', request.raw.socket);
    let body: Buffer;
    try {
      const context = { policy: deps.policy, hold, signal: clock.signal, resolveAll: deps.resolveAll };
      const { input, rendered } = await pageOf(scrape, deps, context, clock, options.blockAds);
      const origin = input.origin!;
      request.audit.bytes = input.file.bytes.length;
      // Upstream reports cacheState only when the cache was looked in (not for maxAge 0).
      const extra = plan && plan.maxAge > 0 ? { cacheState: 'miss' as const } : {};
      body = await convertToAnswer(deps, request, input, options, clock, credit, extra).catch(
        (error: unknown) => {
          throw error instanceof ApiError && error.code === 'UNSUPPORTED_FILE_TYPE'
            ? new ApiError(
                400,
                'SCRAPE_UNSUPPORTED_FILE_ERROR',
                `${origin.url} returned ${origin.contentType ? `"${origin.contentType}"` : 'no Content-Type'}, which Quire cannot convert: ${error.message}`,
              )
            : error;
        },
      );
      if (rendered) {
        const fields = await deps.renderer.answerFields(rendered, options.zeroDataRetention, base);
        // The worker's body ends with the data object's and the envelope's closing braces.
        if (body.subarray(-2).toString() !== '}}')
          throw new Error('the answer does not end with its data object');
        if (fields) body = Buffer.concat([body.subarray(0, body.length - 2), Buffer.from(`,${fields}}}`)]);
      }
      if (plan?.write && cacheWorthy(deps, scrape, origin.statusCode, body)) {
        // Screenshots served by Quire expire after 24 hours; data URLs do not.
        const captureUrls = rendered?.screenshot !== undefined && deps.config.QUIRE_SCRAPE_CAPTURES === 'url';
        // A cache that fails (its store unreachable) costs the next scrape a fetch, not this answer.
        await deps.cache
          .put(plan, body, captureUrls)
          .catch((err: unknown) => request.log.warn({ err }, 'scrape answer not cached'));
      }
    } catch (error) {
      // A site's failure is not Quire's: answered here and logged as information, not as a server
      // error, and under zero data retention without its message, which names the URL.
      if (!(error instanceof ApiError) || !error.code?.startsWith('SCRAPE_') || error.status < 500)
        throw error;
      request.log.info(
        options.zeroDataRetention ? { code: error.code } : { code: error.code, reason: error.message },
        'the scraped site failed',
      );
      return reply.code(error.status).send(error.body());
    } finally {
      clock.done();
      await credit.release();
    }
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    return body;
  });
}
