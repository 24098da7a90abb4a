import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { FetchSettings } from '../options/scrape-options.ts';
import type { UploadHold } from '../quota/upload-budget.ts';
import type { NetPolicy } from '../sessions/net-policy.ts';
import { CookieJar } from './cookie-jar.ts';
import { connectionError, refusedUrl, siteError } from './fetch-errors.ts';
import { readBody } from './read-body.ts';
import { requestHeaders } from './request-headers.ts';
import { pinnedLookup, type ResolveAll, systemResolve, vettedAddress } from './vetted-address.ts';

/** What the origin answered, after redirects. */
export interface FetchedPage {
  /** The URL the bytes came from, after redirects. */
  url: string;
  status: number;
  contentType: string | undefined;
  bytes: Buffer;
}

export interface FetchContext {
  policy: NetPolicy;
  /** Bytes held for the request until its answer is sent (the upload budget). */
  hold: UploadHold;
  /** The request's deadline and the client's leaving: aborts with its reason. */
  signal: AbortSignal;
  /** Resolves names; the system resolver unless a test gives its own. */
  resolveAll?: ResolveAll;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** A part of a URL, percent-decoded where that is valid, else as written. */
export function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** One GET to the vetted address of `url`'s host; resolves once the answer's headers are in. */
async function request(
  url: URL,
  settings: FetchSettings,
  headers: Record<string, string>,
  context: FetchContext,
): Promise<IncomingMessage> {
  const vetted = await vettedAddress(
    url,
    context.policy,
    context.resolveAll ?? systemResolve,
    context.signal,
  );
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers,
    // A connection of its own: a pooled socket would be picked by host name, not by the address vetted.
    agent: false,
    lookup: pinnedLookup(vetted),
    signal: context.signal,
    maxHeaderSize: limits.scrapeResponseHeaderBytes,
    rejectUnauthorized: !settings.skipTlsVerification,
  };
  if (url.username) options.auth = `${decoded(url.username)}:${decoded(url.password)}`;
  return new Promise((resolve, reject) => {
    const sent = (secure ? https : http).request(options, resolve);
    // `on`, not `once`: a request may report a second error, which unheard would end the process.
    sent.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        context.signal.aborted
          ? context.signal.reason
          : connectionError(error, url.href, settings.skipTlsVerification),
      ),
    );
    sent.end();
  });
}

/** The next URL of a redirect; a site error when its Location is no URL, a refusal when it is no web address. */
function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw siteError(
      from.href,
      `the server redirected to "${location.slice(0, 200)}", which is not a valid URL`,
    );
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    throw refusedUrl(
      next.href.slice(0, 200),
      `it is a ${next.protocol} URL, and a scrape follows redirects to http and https only`,
    );
  return next;
}

function tooManyRedirects(chain: readonly string[]): ApiError {
  const loop = new Set(chain).size < chain.length;
  const path = chain.slice(-4).join(' → ');
  return siteError(
    chain[0]!,
    loop
      ? `the page redirects in a loop (… ${path}); Quire stopped after ${limits.scrapeRedirects} redirects`
      : `the page redirected more than ${limits.scrapeRedirects} times (… ${path})`,
  );
}

/**
 * GET a URL the way a careful client would: redirects followed by hand (at most
 * `limits.scrapeRedirects`), each hop's host resolved and vetted against the net policy before
 * anything is sent to it and connected to at the address vetted; the body decoded and counted
 * as it arrives, within the size limit and the request's deadline.
 */
export async function fetchUrl(
  raw: string,
  settings: FetchSettings,
  context: FetchContext,
): Promise<FetchedPage> {
  let url = new URL(raw);
  const origin = url.origin;
  // Once a redirect has left the first origin, the caller's credentials stay behind for good.
  let onOrigin = true;
  const jar = new CookieJar();
  const chain = [url.href];
  for (;;) {
    onOrigin &&= url.origin === origin;
    const headers = requestHeaders(settings, onOrigin, jar.header(url.host));
    const response = await request(url, settings, headers, context);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    jar.store(url.host, response.headers['set-cookie']);
    // A redirect status without a Location is an answer like any other, as browsers show it.
    if (!redirectStatuses.has(status) || !location) {
      try {
        const bytes = await readBody(response, url.href, context.hold, context.signal);
        return { url: url.href, status, contentType: response.headers['content-type'], bytes };
      } catch (error) {
        if (error instanceof ApiError || context.signal.aborted) throw error;
        throw connectionError(error as NodeJS.ErrnoException, url.href, settings.skipTlsVerification);
      }
    }
    // Only where to go next matters: the redirect's own body is never read.
    response.on('error', () => {});
    response.destroy();
    url = redirectTarget(location, url);
    chain.push(url.href);
    if (chain.length > limits.scrapeRedirects + 1) throw tooManyRedirects(chain);
  }
}
