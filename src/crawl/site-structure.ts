import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { FetchSettings } from '../options/scrape-options.ts';
import { type FetchContext, type FetchedPage, fetchUrl } from '../scrape/fetch-url.ts';
import { decodeText } from '../text/decode.ts';
import { pageLinks } from './links.ts';
import { sitemapUrls } from './sitemaps.ts';

const settings: FetchSettings = { headers: {}, acceptLanguage: undefined, skipTlsVerification: true };

/** The text of a fetched body, its first `limits.previewScanBytes` only: enough for a site's map. */
function textOf(bytes: Uint8Array): string {
  return decodeText(bytes.subarray(0, limits.previewScanBytes)).text;
}

/**
 * What the site looks like, for the model: URLs from its sitemap and links on the start page,
 * fetched through the scrape fetcher (so with the same refusal of private addresses), at most
 * `limits.previewSiteUrls` (upstream's number), read by the crawler's own sitemap and link
 * readers. A site without a sitemap, or a start page that fails, just gives fewer URLs; a refused
 * start address is the caller's answer.
 */
export async function siteStructure(start: string, context: FetchContext): Promise<string[]> {
  const found = new Set<string>();
  // Settled into a value at once (never a rejection left waiting while the sitemap is read).
  const page: Promise<FetchedPage | ApiError | undefined> = fetchUrl(start, settings, context).catch(
    (error: unknown) => (error instanceof ApiError && error.status === 403 ? error : undefined),
  );
  const fetchResource = (url: string, signal: AbortSignal) =>
    fetchUrl(url, settings, { ...context, signal }).catch(() => undefined);
  const sitemap = sitemapUrls([new URL('/sitemap.xml', start).href], fetchResource, {
    maxSitemaps: 1,
    maxUrls: limits.previewSiteUrls,
    signal: context.signal,
  });
  for await (const url of sitemap) found.add(url);
  const fetched = await page;
  if (fetched instanceof ApiError) throw fetched;
  if (fetched) for (const url of pageLinks(textOf(fetched.bytes), fetched.url).links) found.add(url);
  return [...found].slice(0, limits.previewSiteUrls);
}
