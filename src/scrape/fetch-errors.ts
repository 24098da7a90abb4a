import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';

/*
 * What a fetched URL can do wrong, in upstream's codes (behaviour doc §1, its scrape controller):
 * a name that does not resolve answers 200 with success false, as upstream does; TLS and site
 * failures 500 with their code (not 502, which the SDK retries three times); a refused address
 * 403, since the caller asked for something this host may not do.
 */

export const dnsError = (host: string) =>
  new ApiError(
    200,
    'SCRAPE_DNS_RESOLUTION_ERROR',
    `DNS resolution failed for hostname "${host}": the name could not be translated to an IP address. Check the URL for typos and that the site exists.`,
  );

export const siteError = (url: string, what: string) =>
  new ApiError(500, 'SCRAPE_SITE_ERROR', `Fetching ${url} failed: ${what}.`);

export function sslError(url: string, detail: string, skipTlsVerification: boolean): ApiError {
  const advice = skipTlsVerification
    ? "Certificates are not being checked (skipTlsVerification is true), so the site's TLS itself is broken; try its http:// address."
    : 'If you trust the site, send skipTlsVerification: true (the default) to fetch it without checking its certificate.';
  return new ApiError(
    500,
    'SCRAPE_SSL_ERROR',
    `A TLS error occurred while connecting to ${url}: ${detail}. ${advice}`,
  );
}

export const refusedUrl = (url: string, why: string) =>
  new ApiError(
    403,
    undefined,
    `Quire refused to fetch ${url}: ${why}. The operator can allow a host with QUIRE_SCRAPE_ALLOWED_HOSTS.`,
  );

export const pageTooLarge = (url: string) =>
  new ApiError(
    400,
    'RESOURCE_LIMIT',
    `The page at ${url} is larger than ${limits.scrapeBodyBytes / 2 ** 20} MB (after decompression), the most one scrape may fetch.`,
  );

export const fetchBusy = (which: 'node' | 'team') =>
  new ApiError(
    429,
    undefined,
    which === 'team'
      ? 'Your team is fetching and uploading more at once than it may hold. Please retry when your other requests are done.'
      : 'Quire is holding too many fetched pages and uploads at once. Please retry shortly.',
    { headers: { 'retry-after': String(limits.uploadBusyRetryS) } },
  );

/** Error codes of Node's TLS layer and OpenSSL that mean the certificate or handshake failed. */
const TLS_CODE =
  /^(?:CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_|ERR_SSL_|EPROTO$|HOSTNAME_MISMATCH)/;

const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'the server refused the connection',
  ECONNRESET: 'the connection was reset by the server',
  EPIPE: 'the connection was closed by the server',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
};

/** A failure of the connection or the exchange with the origin, as the caller's error. */
export function connectionError(error: NodeJS.ErrnoException, url: string, skipTls: boolean): ApiError {
  const code = error.code ?? '';
  if (TLS_CODE.test(code)) return sslError(url, error.message, skipTls);
  if (code === 'HPE_HEADER_OVERFLOW')
    return siteError(
      url,
      `the server's answer headers take more than ${limits.scrapeResponseHeaderBytes} bytes`,
    );
  if (code.startsWith('HPE_'))
    return siteError(url, `the server's answer is not valid HTTP (${error.message})`);
  // Node's word for a body cut short (with ECONNRESET as its code).
  if (error.message === 'aborted')
    return siteError(url, 'the connection closed before the whole answer arrived');
  return siteError(url, SOCKET_ERRORS[code] ?? (error.message || code || 'the connection failed'));
}
