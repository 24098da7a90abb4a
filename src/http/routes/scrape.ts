import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { validateScrapeBody } from '../../options/scrape-options.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import { fetchUrl } from '../../scrape/fetch-url.ts';
import { pageInput } from '../../scrape/page-input.ts';
import type { ResolveAll } from '../../scrape/vetted-address.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';
import { type ConvertDeps, convertToAnswer, deadline, reserveCredits } from '../convert-upload.ts';

export interface ScrapeRouteDeps extends ConvertDeps {
  uploads: UploadBudget;
  teams: TeamSettingsCache;
  credits: Credits;
  /** Which hosts a scrape may reach (private and loopback ones only when the operator allows them). */
  policy: NetPolicy;
  resolveAll?: ResolveAll;
}

/**
 * POST /v2/scrape: fetch the URL over HTTP(S), then convert what came back exactly as an upload of
 * it would be (the same detection, worker pool and answer), with the page's own addresses and
 * status in its metadata. No browser renders the page in this build.
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
    const clock = deadline(request, options.timeout, 'scrape');
    let body: Buffer;
    try {
      const page = await fetchUrl(scrape.url, scrape.fetch, {
        policy: deps.policy,
        hold,
        signal: clock.signal,
        resolveAll: deps.resolveAll,
      });
      request.audit.bytes = page.bytes.length;
      body = await convertToAnswer(
        deps,
        request,
        pageInput(scrape.sourceURL, page),
        options,
        clock,
        credit,
      ).catch((error: unknown) => {
        throw error instanceof ApiError && error.code === 'UNSUPPORTED_FILE_TYPE'
          ? new ApiError(
              400,
              'SCRAPE_UNSUPPORTED_FILE_ERROR',
              `${page.url} returned ${page.contentType ? `"${page.contentType}"` : 'no Content-Type'}, which Quire cannot convert: ${error.message}`,
            )
          : error;
      });
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
