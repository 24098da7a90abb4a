import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { type ScrapeRequest, validateScrapeBody } from '../../options/scrape-options.ts';
import { type Deadline, deadline } from '../../pipeline/deadline.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import { fetchBusy } from '../../scrape/fetch-errors.ts';
import { type FetchContext, type FetchedPage, fetchUrl } from '../../scrape/fetch-url.ts';
import { pageInput } from '../../scrape/page-input.ts';
import { isAppShell } from '../../scrape/render/needs-render.ts';
import { type RenderedPage, renderPage } from '../../scrape/render/render-page.ts';
import type { ScrapeRenderer } from '../../scrape/render/renderer.ts';
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
): Promise<{ input: ConversionInput; rendered?: RenderedPage }> {
  const render = async () => {
    const resolve = deps.resolveAll ?? systemResolve;
    const job = {
      url: scrape.url,
      fetch: scrape.fetch,
      render: scrape.render,
      remaining: clock.remaining,
      signal: clock.signal,
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
    const clock = deadline(options.timeout, 'scrape', request.raw.socket);
    let body: Buffer;
    try {
      const context = { policy: deps.policy, hold, signal: clock.signal, resolveAll: deps.resolveAll };
      const { input, rendered } = await pageOf(scrape, deps, context, clock);
      const origin = input.origin!;
      request.audit.bytes = input.file.bytes.length;
      body = await convertToAnswer(deps, request, input, options, clock, credit).catch((error: unknown) => {
        throw error instanceof ApiError && error.code === 'UNSUPPORTED_FILE_TYPE'
          ? new ApiError(
              400,
              'SCRAPE_UNSUPPORTED_FILE_ERROR',
              `${origin.url} returned ${origin.contentType ? `"${origin.contentType}"` : 'no Content-Type'}, which Quire cannot convert: ${error.message}`,
            )
          : error;
      });
      if (rendered) {
        const extra = await deps.renderer.answerFields(
          rendered,
          options.zeroDataRetention,
          publicBase(deps.config, request).http,
        );
        // The worker's body ends with the data object's and the envelope's closing braces.
        if (body.subarray(-2).toString() !== '}}')
          throw new Error('the answer does not end with its data object');
        if (extra) body = Buffer.concat([body.subarray(0, body.length - 2), Buffer.from(`,${extra}}}`)]);
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
