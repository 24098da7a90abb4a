import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import { validateScrapeBody } from '../../options/scrape-options.ts';
import { reserveCredits } from '../../pipeline/convert-to-answer.ts';
import type { Credits } from '../../quota/credits.ts';
import { type TeamSettingsCache, underZdrPolicy } from '../../quota/team-settings.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import { type ScrapeDeps, scrapePage } from '../../scrape/scrape-page.ts';
import { callerOf } from '../request-context.ts';
import { publicBase } from './interact.ts';

export interface ScrapeRouteDeps extends ScrapeDeps {
  uploads: UploadBudget;
  teams: TeamSettingsCache;
  credits: Credits;
}

/** POST /v2/scrape: one URL through the scrape path (src/scrape/scrape-page.ts). */
export async function scrapeRoutes(app: FastifyInstance, deps: ScrapeRouteDeps): Promise<void> {
  app.post('/v2/scrape', async (request, reply) => {
    const scrape = validateScrapeBody(request.body);
    const team = request.principal!.team;
    const options = underZdrPolicy(scrape.options, (await deps.teams.get(team)).zdr);
    request.audit = {
      action: 'scrape',
      username: options.auditMetadata?.username ?? null,
      zeroDataRetention: options.zeroDataRetention,
      // Under zero data retention even the address stays out of the audit log.
      filename: options.zeroDataRetention ? null : scrape.url,
    };
    const hold = deps.uploads.open(team);
    reply.raw.once('close', hold.releaseAll);
    // Before anything is fetched; given back unless the scrape answers.
    const credit = await reserveCredits(deps.credits, request.principal!);
    let body: Buffer;
    try {
      const outcome = await scrapePage(deps, {
        caller: callerOf(request),
        scrape,
        options,
        hold,
        credit,
        base: publicBase(deps.config, request).http,
        client: request.raw.socket,
        useCache: true,
      });
      body = outcome.body;
      if (outcome.page) request.audit.bytes = outcome.page.bytes.length;
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
      await credit.release();
    }
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    return body;
  });
}
