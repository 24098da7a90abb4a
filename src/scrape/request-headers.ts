import type { FetchSettings } from '../options/scrape-options.ts';
import { acceptEncoding } from './read-body.ts';

/**
 * Says what it is; a caller whose site wants a browser's name sends its own User-Agent. Its
 * product token, Quire, is the one robots.txt rules are matched for (src/crawl/robots.ts).
 */
export const userAgent = 'Mozilla/5.0 (compatible; Quire/0.1)';

/** What a browser asks for first; anything else is still taken. */
const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Upstream's default location is the US. */
export const defaultLanguage = 'en-US,en;q=0.9';

/** The caller's credentials, not passed on when a redirect leaves the first URL's origin (as fetch drops Authorization). */
export const credentials = new Set(['authorization', 'cookie']);

/**
 * The headers of one request of a scrape: Quire's defaults, the caller's headers over them
 * (credentials only while on the first URL's origin), and the cookies set during its redirects.
 * Accept-Encoding is always Quire's, since it decodes only the encodings it asks for.
 */
export function requestHeaders(
  settings: FetchSettings,
  sameOrigin: boolean,
  jarCookie: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': userAgent,
    accept,
    'accept-language': settings.acceptLanguage ?? defaultLanguage,
  };
  for (const [name, value] of Object.entries(settings.headers)) {
    const key = name.toLowerCase();
    if (key === 'accept-encoding' || (!sameOrigin && credentials.has(key))) continue;
    headers[key] = value;
  }
  headers['accept-encoding'] = acceptEncoding;
  if (jarCookie) headers.cookie = headers.cookie ? `${headers.cookie}; ${jarCookie}` : jarCookie;
  return headers;
}
