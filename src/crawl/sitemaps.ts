import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { CLOSE, END, OPEN, XmlScanner } from '../convert/package/xml-scanner.ts';
import { limits } from '../limits.ts';
import { registrableDomain } from './scope.ts';
import { fetchableUrl, withoutFileName } from './url-key.ts';

const gunzipAsync = promisify(gunzip);

/**
 * Fetches one resource for discovery (through the scrape fetcher, with its refusal of private
 * addresses): undefined when it could not be reached. Redirects and Content-Encoding are its own.
 */
export type FetchResource = (
  url: string,
  signal: AbortSignal,
) => Promise<{ status: number; contentType?: string; bytes: Buffer } | undefined>;

export interface SitemapReadOptions {
  /** Sitemap files fetched at most (failed ones included). */
  maxSitemaps: number;
  /** Page URLs yielded at most. */
  maxUrls: number;
  signal: AbortSignal;
}

/** Whether a path (or a URL without query and fragment) names an XML file. */
const isXmlPath = (path: string) => /\.xml(?:\.gz)?$/i.test(path);

/**
 * Where a crawl from `seed` looks for sitemaps, in upstream's order (jobs spec §2.6): the seed
 * itself when it names one (`.xml`, `.xml.gz`), else `sitemap.xml` in the seed's directory; each
 * robots.txt `Sitemap:`; for a subdomain, the apex domain's `/sitemap.xml`; the origin's
 * `/sitemap.xml`. Each once. (Upstream tries the origin's only when nothing else was found; its
 * URLs are the site's too, and the scope filters them, so Quire always tries it.)
 */
export function sitemapCandidates(seed: string, robotsSitemaps: readonly string[]): string[] {
  const url = new URL(seed);
  const found: string[] = [];
  if (isXmlPath(url.pathname)) {
    url.hash = '';
    found.push(url.href);
  } else {
    let dir = withoutFileName(url.pathname);
    if (!dir.endsWith('/')) dir += '/';
    found.push(`${url.origin}${dir}sitemap.xml`);
  }
  for (const raw of robotsSitemaps) {
    const sitemap = fetchableUrl(raw.trim(), url.href);
    if (sitemap) found.push(sitemap);
  }
  const apex = registrableDomain(url.hostname);
  if (apex !== undefined && apex !== url.hostname) found.push(`${url.protocol}//${apex}/sitemap.xml`);
  found.push(`${url.origin}/sitemap.xml`);
  return [...new Set(found)];
}

/** What one sitemap file lists. */
interface Listing {
  /** Whether it was a sitemap, an index or a feed at all (not a page or another XML document). */
  isSitemap: boolean;
  pages: string[];
  /**
   * Sitemaps it points to: an index's entries, and a urlset's `.xml` locs (upstream's reading),
   * which are pages after all (`maybePage`) when they turn out not to be sitemaps.
   */
  sitemaps: { url: string; maybePage: boolean }[];
}

const SITEMAP_ROOTS = new Set(['urlset', 'sitemapindex', 'rss', 'feed', 'RDF']);

/** A sitemap's body: gunzipped when it starts with gzip's magic bytes, whatever it is called or typed. */
async function bodyText(bytes: Buffer): Promise<string | undefined> {
  let plain: Uint8Array = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      plain = await gunzipAsync(bytes, { maxOutputLength: limits.sitemapBytes });
    } catch {
      return undefined;
    }
  } else if (bytes.length > limits.sitemapBytes) return undefined;
  if (plain[0] === 0xff && plain[1] === 0xfe) return new TextDecoder('utf-16le').decode(plain);
  if (plain[0] === 0xfe && plain[1] === 0xff) return new TextDecoder('utf-16be').decode(plain);
  const text = Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The URLs of an XML sitemap, index or feed, read with the tag scanner (no tree: a 50,000-URL
 * file is read in one pass): `<url><loc>`, `<sitemap><loc>`, RSS `<item><link>` and Atom
 * `<entry><link href>`. Other `loc`s (image:loc, video:...) are not pages and are skipped.
 */
function readXml(text: string, sitemapUrl: string): Listing {
  const listing: Listing = { isSitemap: false, pages: [], sitemaps: [] };
  const page = (raw: string) => {
    const url = fetchableUrl(raw.trim(), sitemapUrl);
    if (url) listing.pages.push(url);
  };
  const loc = (raw: string, inIndex: boolean) => {
    const url = fetchableUrl(raw.trim(), sitemapUrl);
    if (!url) return;
    if (inIndex) listing.sitemaps.push({ url, maybePage: false });
    else if (isXmlPath(url.replace(/[?#].*/s, ''))) listing.sitemaps.push({ url, maybePage: true });
    else listing.pages.push(url);
  };
  const scanner = new XmlScanner(text, sitemapUrl);
  const stack: string[] = [];
  try {
    for (let kind = scanner.next(); kind !== END; kind = scanner.next()) {
      if (kind === CLOSE) {
        stack.pop();
        continue;
      }
      if (kind !== OPEN) continue;
      const name = scanner.name;
      const parent = stack.at(-1);
      if (stack.length === 0 && SITEMAP_ROOTS.has(name)) listing.isSitemap = true;
      if (name === 'loc' && stack.length === 2 && (parent === 'url' || parent === 'sitemap')) {
        const text = scanner.elementText();
        // A file cut inside a loc ends with part of a URL: not one to fetch.
        if (scanner.truncated) break;
        loc(text, parent === 'sitemap');
        continue;
      }
      if (name === 'link' && (parent === 'item' || parent === 'entry')) {
        const href = scanner.attr('href');
        if (href === undefined) {
          const text = scanner.elementText();
          if (scanner.truncated) break;
          page(text);
        } else {
          // Atom: the entry's own page, not its edit, enclosure or related links.
          const rel = scanner.attr('rel');
          if (rel === undefined || rel === 'alternate') page(href);
          scanner.skipElement();
        }
        continue;
      }
      if (!scanner.empty) stack.push(name);
    }
  } catch {
    // A DOCTYPE declaring entities (never expanded): what was read before it stays.
  }
  return listing;
}

/** A text sitemap: one absolute URL a line (sitemaps protocol); other lines are skipped. */
function readText(text: string): Listing {
  const pages: string[] = [];
  for (const line of text.split(/\r\n?|\n/)) {
    const trimmed = line.trim();
    if (!/^https?:\/\//i.test(trimmed)) continue;
    const url = fetchableUrl(trimmed, trimmed);
    if (url) pages.push(url);
  }
  return { isSitemap: pages.length > 0, pages, sitemaps: [] };
}

async function readSitemap(
  url: string,
  fetch: FetchResource,
  signal: AbortSignal,
): Promise<Listing | undefined> {
  let response: Awaited<ReturnType<FetchResource>>;
  try {
    response = await fetch(url, signal);
  } catch {
    return undefined;
  }
  if (!response || response.status < 200 || response.status > 299) return undefined;
  const text = await bodyText(response.bytes);
  if (text === undefined) return undefined;
  return /^\s*</.test(text) ? readXml(text, url) : readText(text);
}

/**
 * The page URLs of a site's sitemaps, from `candidates` in order (sitemapCandidates), following
 * index entries and a urlset's `.xml` locs depth first: each sitemap fetched once, at most
 * `maxSitemaps` fetched, at most `maxUrls` distinct URLs yielded (absolute, http(s), trimmed,
 * entities decoded). Gzip is recognised by its magic bytes and inflated up to
 * `limits.sitemapBytes`; text sitemaps and RSS/Atom feeds are read too. A `.xml` loc of a urlset
 * that turns out not to be a sitemap is yielded as a page (upstream loses it). A sitemap that
 * fails, answers non-2xx or is malformed is skipped (what a damaged one listed before the damage
 * is kept); nothing here throws. Stops when `signal` aborts.
 */
export async function* sitemapUrls(
  candidates: readonly string[],
  fetch: FetchResource,
  options: SitemapReadOptions,
): AsyncGenerator<string> {
  const { signal } = options;
  const fetched = new Set<string>();
  const yielded = new Set<string>();
  /** Sitemaps still to read, the next last; `maybePage`: a urlset's `.xml` loc, a page if not a sitemap. */
  const stack = [...candidates].reverse().map((url) => ({ url, maybePage: false }));
  while (stack.length > 0 && yielded.size < options.maxUrls && !signal.aborted) {
    const { url: raw, maybePage } = stack.pop()!;
    const url = fetchableUrl(raw, raw);
    if (!url || fetched.has(url) || fetched.size >= options.maxSitemaps) continue;
    fetched.add(url);
    const listing = await readSitemap(url, fetch, signal);
    if (!listing || signal.aborted) continue;
    const pages = maybePage && !listing.isSitemap ? [url] : listing.pages;
    for (const page of pages) {
      if (yielded.has(page)) continue;
      yielded.add(page);
      yield page;
      if (yielded.size >= options.maxUrls || signal.aborted) return;
    }
    for (let i = listing.sitemaps.length - 1; i >= 0; i--) stack.push(listing.sitemaps[i]!);
  }
}
