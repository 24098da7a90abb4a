import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { FetchSettings } from '../options/scrape-options.ts';
import { type FetchContext, fetchUrl } from '../scrape/fetch-url.ts';
import { decodeText } from '../text/decode.ts';

const settings: FetchSettings = { headers: {}, acceptLanguage: undefined, skipTlsVerification: true };

const LOC = /<loc>\s*([^<\s]+)\s*<\/loc>/gi;
const HREF = /<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;

function absolute(href: string, base: string): string | undefined {
  try {
    const url = new URL(href.replace(/&amp;/g, '&').trim(), base);
    url.hash = '';
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The text of a fetched body, its first `limits.previewScanBytes` only: enough for a site's map. */
function textOf(bytes: Uint8Array): string {
  return decodeText(bytes.subarray(0, limits.previewScanBytes)).text;
}

/**
 * What the site looks like, for the model: URLs from its sitemap and links on the start page,
 * fetched through the scrape fetcher (so with the same refusal of private addresses), at most
 * `limits.previewSiteUrls` (upstream's number). Read with patterns rather than a parser: only
 * addresses are wanted, and a scan is linear in the bytes, which the API process can afford.
 * A site without a sitemap, or a start page that fails, just gives fewer URLs; a refused
 * address is the caller's answer.
 */
export async function siteStructure(start: string, context: FetchContext): Promise<string[]> {
  const found = new Set<string>();
  const [sitemap, page] = await Promise.allSettled([
    fetchUrl(new URL('/sitemap.xml', start).href, settings, context),
    fetchUrl(start, settings, context),
  ]);
  for (const result of [sitemap, page]) {
    if (result.status === 'rejected' && result.reason instanceof ApiError && result.reason.status === 403)
      throw result.reason;
  }
  if (sitemap.status === 'fulfilled' && sitemap.value.status < 300) {
    for (const [, loc] of textOf(sitemap.value.bytes).matchAll(LOC)) {
      const url = absolute(loc!, sitemap.value.url);
      if (url) found.add(url);
    }
  }
  if (page.status === 'fulfilled') {
    for (const match of textOf(page.value.bytes).matchAll(HREF)) {
      const url = absolute(match[1] ?? match[2] ?? match[3] ?? '', page.value.url);
      if (url) found.add(url);
    }
  }
  return [...found].slice(0, limits.previewSiteUrls);
}
