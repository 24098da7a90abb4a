import { getDomain } from 'tldts';
import { limits } from '../limits.ts';
import { bareHost, withoutFileName } from './url-key.ts';

/** The crawl request's fields that decide which discovered URLs a crawl may fetch (jobs spec §2.1). */
export interface ScopeOptions {
  /** Unanchored RegExp sources; when any are given, a URL must match one. */
  includePaths: string[];
  /** Unanchored RegExp sources; a URL matching one is refused. */
  excludePaths: string[];
  /** Match include/exclude against the full URL rather than its path. */
  regexOnFullURL: boolean;
  /** The whole host rather than only paths under the seed's. */
  crawlEntireDomain: boolean;
  /** Other hosts of the seed's registrable domain. */
  allowSubdomains: boolean;
  /** Other sites, when linked from a page of the seed's host. */
  allowExternalLinks: boolean;
}

/**
 * Paths ending in these are never fetched: images, styles, scripts, fonts, media, archives and
 * installers, which hold no text a crawl wants (upstream's list, plus the same kinds it missed).
 * PDF, DOCX and XML are crawled and converted like a scrape, as upstream; so are the office and
 * text formats Quire converts, except xlsx and pptx, which upstream skips.
 */
const SKIPPED_EXTENSIONS = new Set([
  // upstream's
  'png',
  'jpg',
  'jpeg',
  'gif',
  'css',
  'js',
  'ico',
  'svg',
  'tiff',
  'zip',
  'exe',
  'dmg',
  'mp4',
  'mp3',
  'wav',
  'pptx',
  'xlsx',
  'avi',
  'flv',
  'woff',
  'ttf',
  'woff2',
  'webp',
  'inc',
  // the same kinds
  'avif',
  'bmp',
  'heic',
  'tif',
  'eot',
  'otf',
  'mjs',
  'map',
  'mov',
  'm4v',
  'mkv',
  'webm',
  'wmv',
  'mpg',
  'mpeg',
  'm4a',
  'ogg',
  'oga',
  'flac',
  'aac',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'rar',
  'tar',
  'iso',
  'apk',
  'msi',
  'deb',
  'rpm',
  'jar',
  'bin',
]);

/** Sites whose pages an external-link crawl never follows: profiles and share links, not content. */
const SOCIAL_HOSTS = [
  'facebook.com',
  'fb.com',
  'twitter.com',
  'x.com',
  't.co',
  'linkedin.com',
  'instagram.com',
  'pinterest.com',
  'github.com',
  'calendly.com',
  'discord.com',
  'discord.gg',
  'youtube.com',
  'youtu.be',
  'tiktok.com',
];

/** Reasons `refuse` gives, for the crawl's errors and logs. */
export const refusals = {
  notHttp: 'Not an http(s) URL',
  include: 'URL does not match required include pattern',
  exclude: 'URL matches an exclude pattern',
  external: 'External URL not allowed',
  social: 'Social media URL not crawled',
  externalRoot: 'Root page of another site not crawled',
  startPath: 'Outside the start path',
  fileType: 'File type not crawled',
  trap: 'URL looks like a crawler trap (too long, too deep or repeating)',
} as const;

/** Whether `hostname` is `domain` or one of its subdomains. */
function within(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

/** The registrable domain (public-suffix list, private suffixes such as github.io included); undefined for IPs. */
export function registrableDomain(hostname: string): string | undefined {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? undefined;
}

function extensionOf(pathname: string): string {
  const name = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot === -1 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * Whether a URL has the shape of a crawler trap rather than a page: longer than
 * `limits.crawlTrapUrlChars`, deeper than `limits.crawlTrapPathSegments`, or with one path segment
 * `limits.crawlTrapSegmentRepeats` times (relative links that nest: /a/b/a/b/a/b).
 */
export function isTrapLike(url: string): boolean {
  if (url.length > limits.crawlTrapUrlChars) return true;
  const parsed = URL.parse(url);
  if (!parsed) return false;
  const segments = parsed.pathname.slice(1).split('/');
  if (segments.at(-1) === '') segments.pop();
  if (segments.length > limits.crawlTrapPathSegments) return true;
  const seen = new Map<string, number>();
  for (const segment of segments) {
    const n = (seen.get(segment) ?? 0) + 1;
    if (n >= limits.crawlTrapSegmentRepeats) return true;
    seen.set(segment, n);
  }
  return false;
}

/**
 * The pattern a URL shares with its endless variants: host (without `www.`) and path with every
 * digit run as `0`, and the query's parameter names (digits likewise) without values, sorted.
 * `/cal/2024/01/05` and `/cal/2031/12/30` share one, as do `/list?page=1` and `/list?page=99`.
 */
export function variantPattern(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return url;
  const names = new Set<string>();
  for (const name of parsed.searchParams.keys()) names.add(name.replace(/\d+/g, '0'));
  const query = names.size === 0 ? '' : `?${[...names].sort().join('&')}`;
  return `${bareHost(parsed.host)}${parsed.pathname.replace(/\d+/g, '0')}${query}`;
}

/**
 * Counts a crawl's new URLs per variantPattern and refuses those past `maxPerPattern`: a bound on
 * calendars and query variants that no single URL gives away. Call it once per URL the frontier
 * has not seen (after the dedupe key), so that each counts once.
 */
export class VariantBudget {
  private readonly max: number;
  private readonly counts = new Map<string, number>();

  constructor(maxPerPattern: number) {
    this.max = maxPerPattern;
  }

  /** Whether the URL still fits its pattern's budget; if so it is counted. */
  admit(url: string): boolean {
    const pattern = variantPattern(url);
    const n = this.counts.get(pattern) ?? 0;
    if (n >= this.max) return false;
    this.counts.set(pattern, n + 1);
    return true;
  }
}

/**
 * Which discovered URLs one crawl may fetch (jobs spec §2.1, §2.6), robots.txt aside.
 *
 * Where Quire differs from upstream, on purpose:
 * - include/exclude always match what regexOnFullURL says (upstream matches in-page links on the
 *   path whatever it says) and are full JS RegExps (upstream silently drops patterns its Rust
 *   regex engine rejects, such as look-arounds);
 * - the start path binds the seed's host only; subdomains and external sites, once allowed, are
 *   taken whole (upstream compares their paths with the seed's too);
 * - a seed naming a page file (`/docs/index.html`) starts at its directory, and the start
 *   directory itself without its slash (`/docs` for `/docs/`) is inside;
 * - social hosts are matched on the host (upstream looks for `x.com` anywhere in the URL string,
 *   so box.com was "social"), and more asset and media types are skipped;
 * - URLs shaped like traps (isTrapLike) are refused.
 */
export class CrawlScope {
  readonly seed: string;
  private readonly options: ScopeOptions;
  private readonly host: string;
  private readonly domain: string | undefined;
  private readonly startPath: string;
  private readonly includes: RegExp[];
  private readonly excludes: RegExp[];

  /** `seed` must be an absolute http(s) URL and the patterns must compile (the request's validation). */
  constructor(seed: string, options: ScopeOptions) {
    const url = new URL(seed);
    this.seed = url.href;
    this.options = options;
    this.host = bareHost(url.hostname);
    this.domain = registrableDomain(url.hostname);
    this.startPath = withoutFileName(url.pathname);
    this.includes = options.includePaths.map((p) => new RegExp(p));
    this.excludes = options.excludePaths.map((p) => new RegExp(p));
  }

  /**
   * Why `url` may not be crawled, or undefined when it may. `from` is the page it was found on
   * (undefined for the seed, sitemap and index URLs): external links are followed only from a
   * page of the seed's host.
   */
  refuse(url: string, from?: string): string | undefined {
    const target = URL.parse(url);
    if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) return refusals.notHttp;
    const onSeedHost = bareHost(target.hostname) === this.host;
    if (!onSeedHost) {
      const subdomain =
        this.options.allowSubdomains &&
        this.domain !== undefined &&
        registrableDomain(target.hostname) === this.domain;
      if (!subdomain) {
        if (!this.options.allowExternalLinks || !this.fromSeedHost(from)) return refusals.external;
        if (SOCIAL_HOSTS.some((h) => within(target.hostname, h))) return refusals.social;
        if (target.pathname.split('/').every((s) => s === '')) return refusals.externalRoot;
      }
    }
    if (SKIPPED_EXTENSIONS.has(extensionOf(target.pathname))) return refusals.fileType;
    const subject = this.options.regexOnFullURL ? target.href : target.pathname;
    if (this.excludes.some((r) => r.test(subject))) return refusals.exclude;
    if (this.includes.length > 0 && !this.includes.some((r) => r.test(subject))) return refusals.include;
    if (onSeedHost && !this.options.crawlEntireDomain && !this.underStartPath(target.pathname)) {
      return refusals.startPath;
    }
    if (isTrapLike(target.href)) return refusals.trap;
    return undefined;
  }

  /** The same rules from another seed: after the seed redirects to another host, the crawl follows it. */
  rebase(newSeed: string): CrawlScope {
    return new CrawlScope(newSeed, this.options);
  }

  private fromSeedHost(from: string | undefined): boolean {
    if (from === undefined) return false;
    const page = URL.parse(from);
    return page !== null && bareHost(page.hostname) === this.host;
  }

  /** Upstream's plain string prefix (`/blog` admits `/blog-post`), and the start directory without its slash. */
  private underStartPath(pathname: string): boolean {
    const start = this.startPath;
    return (
      pathname.startsWith(start) ||
      (start.length > 1 && start.endsWith('/') && pathname === start.slice(0, -1))
    );
  }
}
