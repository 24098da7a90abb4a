import { ApiError } from '../errors.ts';
import type { MapRequest } from '../jobs/job-requests.ts';
import { limits } from '../limits.ts';
import type { FetchSettings } from '../options/scrape-options.ts';
import { type FetchContext, fetchUrl } from '../scrape/fetch-url.ts';
import { pageLinks } from './links.ts';
import { assembleMap, type MapLink } from './map-links.ts';
import { RobotsRules } from './robots.ts';
import { type FetchResource, sitemapCandidates, sitemapUrls } from './sitemaps.ts';

/**
 * A site's URLs for POST /v2/map: its sitemaps (robots.txt's included, indexes followed), and
 * the links on its start page unless `sitemap` is only; then filtered, deduplicated, ranked by
 * `search` and cut to `limit` (map-links.ts). Every fetch goes through the scrape fetcher, so the
 * same address policy holds on every hop. A refused start address is the caller's 403; any other
 * failed fetch only means fewer URLs.
 */
export async function mapSite(request: MapRequest, context: FetchContext): Promise<MapLink[]> {
  const settings: FetchSettings = {
    headers: request.headers,
    acceptLanguage: undefined,
    skipTlsVerification: false,
  };
  const fetchResource: FetchResource = async (url, signal) => {
    try {
      const page = await fetchUrl(url, settings, { ...context, signal });
      return { status: page.status, contentType: page.contentType, bytes: page.bytes };
    } catch (error) {
      if (error instanceof ApiError && error.status === 403 && url === request.url) throw error;
      return undefined;
    }
  };
  const found: MapLink[] = [{ url: request.url }];
  // Settled into a value at once (never a rejection left waiting while the sitemaps are read).
  const seedPage =
    request.sitemap === 'only'
      ? undefined
      : fetchResource(request.url, context.signal).then(
          (page) => ({ page }),
          (error: unknown) => ({ error }),
        );
  if (request.sitemap !== 'skip') {
    const robotsUrl = new URL('/robots.txt', request.url).href;
    const robots = await fetchResource(robotsUrl, context.signal);
    const rules =
      robots && robots.status < 300
        ? RobotsRules.parse(robotsUrl, robots.bytes.toString('utf8'), robots.contentType)
        : RobotsRules.allowAll();
    const urls = sitemapUrls(sitemapCandidates(request.url, rules.sitemaps()), fetchResource, {
      maxSitemaps: limits.crawlSitemaps,
      maxUrls: limits.mapSitemapUrls,
      signal: context.signal,
    });
    for await (const url of urls) found.push({ url });
  }
  const seed = await seedPage;
  if (seed && 'error' in seed) throw seed.error;
  const page = seed?.page;
  if (page && page.status < 300 && /html/i.test(page.contentType ?? 'text/html')) {
    for (const url of pageLinks(page.bytes.toString('utf8'), request.url).links) found.push({ url });
  }
  if (context.signal.aborted) throw context.signal.reason;
  return assembleMap(request.url, found, request);
}
