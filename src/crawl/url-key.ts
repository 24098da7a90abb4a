/**
 * URL identity for a crawl: the key under which the frontier remembers a page (so each page is
 * fetched once however its links spell it) and the fetchable form of a link found on a page.
 * Upstream's facts are in the jobs spec §2.6; Quire also sorts query parameters, drops tracking
 * and session-id parameters from the key, and normalises percent-escapes.
 */

export interface KeyOptions {
  /** One key for www./bare host, http/https, a trailing slash and index pages (upstream's default). */
  deduplicateSimilarURLs: boolean;
  /** The query is left out of the key (the page is still fetched with it). */
  ignoreQueryParameters: boolean;
}

/** Parameters that say how a visitor arrived, not what the page is (ad clicks, newsletters, analytics). */
const TRACKING = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'gad_source',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'igshid',
  'li_fat_id',
  'epik',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  '__hstc',
  '__hssc',
  '__hsfp',
  'hsctatracking',
  'mkt_tok',
  'vero_id',
  'vero_conv',
  'oly_anon_id',
  'oly_enc_id',
  'rb_clickid',
  's_cid',
  'ck_subscriber_id',
  'wickedid',
]);
/** Families of tracking parameters: Google Analytics, Matomo/Piwik, HubSpot ads. */
const TRACKING_PREFIXES = ['utm_', 'mtm_', 'pk_', 'hsa_'];
/** Session ids put in URLs by servers that could not set a cookie: every visit spells each page anew. */
const SESSION = new Set(['jsessionid', 'phpsessid', 'sid', 'sessionid', 'session_id', 'cfid', 'cftoken']);
/** The same ids as path parameters (Java servlets write `/page;jsessionid=...`). */
const SESSION_PATH_PARAM = /;(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*/gi;

/** Index pages a server gives for their directory: `/x/index.html` is `/x/`. */
const INDEX_PAGE = /\/(?:index\.(?:html?|shtml|php|asp|aspx|jsp)|default\.(?:html?|asp|aspx))$/i;

/** Page file names a path may end in, whose directory is what a seed like `/docs/index.html` means. */
const PAGE_FILE = /\/[^/]+\.(?:s?html?|xhtml|php\d?|aspx?|jspx?|cfm|cgi|pl|md|txt|pdf|xml|json)$/i;

const ESCAPE = /%([0-9a-fA-F]{2})/g;

/** Whether a code is an RFC 3986 unreserved character, whose escape means the character itself. */
function unreserved(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x2e ||
    c === 0x5f ||
    c === 0x7e
  );
}

/** `%7e` and `%7E` are `~`, `%c3` is `%C3`: one spelling for each percent-escape (RFC 3986 §6.2.2). */
function normaliseEscapes(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(ESCAPE, (_, hex: string) => {
    const c = Number.parseInt(hex, 16);
    return unreserved(c) ? String.fromCharCode(c) : `%${hex.toUpperCase()}`;
  });
}

/** A fragment that is a client-side route (`#/docs`, `#!/docs`) and so a page of its own; else ''. */
export function routeFragment(hash: string): string {
  return /^#!?\/./.test(hash) ? hash : '';
}

/** A path's directory when it ends in a page file name (`/docs/index.html` → `/docs/`), else the path. */
export function withoutFileName(pathname: string): string {
  return PAGE_FILE.test(pathname) ? pathname.slice(0, pathname.lastIndexOf('/') + 1) : pathname;
}

/** A host without its leading `www.`: the crawl counts both spellings as one site (upstream's "internal"). */
export function bareHost(hostname: string): string {
  return hostname.startsWith('www.') ? hostname.slice(4) : hostname;
}

function parameterName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = (eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** Whether a query parameter says nothing about the page: tracking or a session id. */
function isNoise(name: string): boolean {
  return TRACKING.has(name) || SESSION.has(name) || TRACKING_PREFIXES.some((p) => name.startsWith(p));
}

/** The query without noise, escapes normalised, parameters sorted by name (values of one name keep their order). */
function normaliseQuery(search: string): string {
  if (search === '') return '';
  const pairs = search
    .split('&')
    .filter((pair) => pair !== '' && !isNoise(parameterName(pair)))
    .map((pair) => {
      const p = normaliseEscapes(pair);
      const eq = p.indexOf('=');
      return { name: eq === -1 ? p : p.slice(0, eq), pair: p };
    });
  pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pairs.length === 0 ? '' : `?${pairs.map((p) => p.pair).join('&')}`;
}

/**
 * The frontier's dedupe key of a URL. Always: host lower-cased and default port dropped (WHATWG
 * URL), percent-escapes in one spelling, the fragment dropped unless a client route, tracking and
 * session-id parameters dropped, the rest sorted by name (the query left out entirely with
 * ignoreQueryParameters). With deduplicateSimilarURLs the scheme, a leading `www.`, a trailing
 * slash and an index page name (`index.html`, `index.php`, ...) are left out too, so that every
 * spelling of one page has one key. An unparsable URL is its own key.
 */
export function pageKey(url: string, options: KeyOptions): string {
  const parsed = URL.parse(url.trim());
  if (!parsed) return url;
  let path = normaliseEscapes(parsed.pathname.replace(SESSION_PATH_PARAM, ''));
  const query = options.ignoreQueryParameters ? '' : normaliseQuery(parsed.search.slice(1));
  const hash = routeFragment(parsed.hash);
  if (!options.deduplicateSimilarURLs) return `${parsed.protocol}//${parsed.host}${path}${query}${hash}`;
  path = path.replace(INDEX_PAGE, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return `//${bareHost(parsed.host)}${path}${query}${hash}`;
}

/**
 * A link found on a page as the crawler would fetch it: resolved against the page's URL (or its
 * `<base href>`), http(s) only (undefined for mailto:, javascript:, tel:, data: and what does not
 * parse), the fragment dropped unless it is a client route.
 */
export function fetchableUrl(href: string, base: string): string | undefined {
  const url = URL.parse(href, base);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  if (url.hash !== '' && routeFragment(url.hash) === '') url.hash = '';
  return url.href;
}
