import type { FastifyInstance } from 'fastify';
import { mapSite } from '../../crawl/map-site.ts';
import { ApiError } from '../../errors.ts';
import { validateMapBody } from '../../jobs/job-requests.ts';
import { limits } from '../../limits.ts';
import { reserveCredits } from '../../pipeline/convert-to-answer.ts';
import type { Credits } from '../../quota/credits.ts';
import type { UploadBudget } from '../../quota/upload-budget.ts';
import type { ResolveAll } from '../../scrape/vetted-address.ts';
import type { NetPolicy } from '../../sessions/net-policy.ts';

export interface MapRouteDeps {
  credits: Credits;
  uploads: UploadBudget;
  policy: NetPolicy;
  /** How host names are resolved: the system's, unless a test maps names of its own to loopback. */
  resolveAll?: ResolveAll;
}

/**
 * POST /v2/map (jobs-and-formats §5): a site's URLs, at one credit per call. Sitemaps can be
 * large, so their bytes count against the team's fetch budget as a scrape's do; `timeout` (or
 * limits.mapDefaultTimeoutMs) ends it with upstream's 408 MAP_TIMEOUT.
 */
export async function mapRoutes(app: FastifyInstance, deps: MapRouteDeps): Promise<void> {
  app.post('/v2/map', async (request, reply) => {
    const map = validateMapBody(request.body);
    const team = request.principal!.team;
    const credit = await reserveCredits(deps.credits, request.principal!);
    const hold = deps.uploads.open(team);
    const ms = map.timeout ?? limits.mapDefaultTimeoutMs;
    const timedOut = new ApiError(
      408,
      'MAP_TIMEOUT',
      `The map did not finish within its timeout of ${ms} ms.`,
    );
    const clock = new AbortController();
    const timer = setTimeout(() => clock.abort(timedOut), ms);
    const gone = () => clock.abort(new Error('client gone'));
    request.raw.socket.once('close', gone);
    try {
      const links = await mapSite(map, {
        policy: deps.policy,
        resolveAll: deps.resolveAll,
        hold,
        signal: clock.signal,
      });
      await credit.settle(1);
      reply.header('cache-control', 'no-store');
      return { success: true, links };
    } catch (error) {
      throw clock.signal.aborted && clock.signal.reason instanceof ApiError ? clock.signal.reason : error;
    } finally {
      clearTimeout(timer);
      request.raw.socket.off('close', gone);
      hold.releaseAll();
      await credit.release();
    }
  });
}
