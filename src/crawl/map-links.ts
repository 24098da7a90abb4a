import { registrableDomain } from './scope.ts';
import { bareHost, pageKey, withoutFileName } from './url-key.ts';

/** The POST /v2/map fields that shape its answer (jobs spec §5). */
export interface MapOptions {
  /** Ranks the links by how well they match these words. */
  search?: string;
  /** Other hosts of the seed's registrable domain; false keeps the seed's host (with or without www.). */
  includeSubdomains: boolean;
  /** Strips the query from every link (the map's default is true, unlike crawl). */
  ignoreQueryParameters: boolean;
  limit: number;
  /** With a seed below the root, keep only links under its path. */
  filterByPath: boolean;
  /** Turns filterByPath off, as upstream. */
  allowExternalLinks?: boolean;
}

export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** Words too common to rank by, dropped from a query that has others. */
const STOPWORDS = new Set([
  'a',
  'an',
  'and',
  'the',
  'of',
  'or',
  'for',
  'to',
  'in',
  'on',
  'with',
  'by',
  'at',
  'is',
  'how',
  'what',
]);

/** Weights of one query word found in a field: whole word, else inside a word. Path > title > host. */
const WEIGHTS = {
  path: { word: 3, part: 1.5 },
  title: { word: 2, part: 1 },
  host: { word: 1, part: 0.5 },
} as const;
/** Times 1/(1 + path segments): a tie-breaker among matches, smaller than any match's weight. */
const SHORT_PATH_BONUS = 0.25;
/** Query words shorter than this only count as whole words (`a` is inside every word). */
const MIN_PART_CHARS = 3;

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A link as the map lists it: no fragment, no query when asked, no trailing slash except the root's. */
function normalised(raw: string, ignoreQuery: boolean): URL | undefined {
  const url = URL.parse(raw.trim());
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  url.hash = '';
  if (ignoreQuery) url.search = '';
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) {
    url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  }
  return url;
}

/** The query's words, lower-cased, each once; stopwords go unless they are all there is. */
function queryWords(search: string): string[] {
  const words = [...new Set(wordsOf(search))];
  const meaningful = words.filter((w) => !STOPWORDS.has(w));
  return meaningful.length > 0 ? meaningful : words;
}

function fieldScore(
  word: string,
  words: ReadonlySet<string>,
  text: string,
  weight: { word: number; part: number },
): number {
  if (words.has(word)) return weight.word;
  return word.length >= MIN_PART_CHARS && text.includes(word) ? weight.part : 0;
}

/** How well a link matches the query: per query word, its best showing in each of path, title, host. */
function score(link: MapLink, url: URL, query: readonly string[]): number {
  const path = decoded(url.pathname).toLowerCase();
  const pathWords = new Set(wordsOf(path));
  const host = url.hostname;
  const hostWords = new Set(wordsOf(host));
  const title = (link.title ?? '').toLowerCase();
  const titleWords = new Set(wordsOf(title));
  let total = 0;
  for (const word of query) {
    total +=
      fieldScore(word, pathWords, path, WEIGHTS.path) +
      fieldScore(word, titleWords, title, WEIGHTS.title) +
      fieldScore(word, hostWords, host, WEIGHTS.host);
  }
  if (total === 0) return 0;
  const segments = url.pathname.split('/').filter((s) => s !== '').length;
  return total + SHORT_PATH_BONUS / (1 + segments);
}

/**
 * The links POST /v2/map answers with, from what discovery found (sitemaps, the seed's page, a
 * search engine), in discovery order (jobs spec §5): normalised (fragment dropped, query dropped
 * when asked, trailing slash dropped except the root's); kept when on the seed's registrable
 * domain and, without includeSubdomains, on the seed's host; under the seed's path with
 * filterByPath; deduplicated (first position wins, taking a later duplicate that has a title when
 * the first has none); ranked when `search` is given; cut to `limit`. The seed is always in the
 * answer: first, unless the ranking puts it later, and never cut by the limit.
 *
 * Better than upstream: duplicates are found by the crawl's page key (www./bare, http/https,
 * `index.html` and tracking parameters are one link; upstream compares strings), "same domain"
 * is the registrable domain (upstream: the last two labels, so a.co.uk and b.co.uk matched),
 * filterByPath keeps whole segments (`/docs` does not admit `/docs-old`), and the ranking weighs
 * whole words in the path, title and host (upstream: occurrences ÷ URL length, URL only).
 */
export function assembleMap(seed: string, found: readonly MapLink[], options: MapOptions): MapLink[] {
  const seedUrl = normalised(seed, options.ignoreQueryParameters) ?? new URL(seed);
  const seedHost = bareHost(seedUrl.hostname);
  const seedDomain = registrableDomain(seedUrl.hostname) ?? seedUrl.hostname;
  const seedPath = withoutFileName(seedUrl.pathname).replace(/\/+$/, '');
  const byPath = options.filterByPath && !options.allowExternalLinks && seedPath !== '';
  const keyOptions = { deduplicateSimilarURLs: true, ignoreQueryParameters: options.ignoreQueryParameters };

  const entries: { link: MapLink; url: URL }[] = [];
  const index = new Map<string, number>();
  const add = (link: MapLink, url: URL) => {
    const key = pageKey(url.href, keyOptions);
    const at = index.get(key);
    const entry = { link: { ...link, url: url.href }, url };
    if (at === undefined) {
      index.set(key, entries.length);
      entries.push(entry);
    } else if (link.title !== undefined && entries[at]!.link.title === undefined) entries[at] = entry;
  };

  add({ url: seedUrl.href }, seedUrl);
  for (const link of found) {
    const url = normalised(link.url, options.ignoreQueryParameters);
    if (!url) continue;
    if ((registrableDomain(url.hostname) ?? url.hostname) !== seedDomain) continue;
    if (!options.includeSubdomains && bareHost(url.hostname) !== seedHost) continue;
    if (byPath && url.pathname !== seedPath && !url.pathname.startsWith(`${seedPath}/`)) continue;
    add(link, url);
  }

  let ranked = entries;
  const query = queryWords(options.search ?? '');
  if (query.length > 0) {
    const scores = new Map(entries.map((e) => [e, score(e.link, e.url, query)]));
    ranked = [...entries].sort((a, b) => scores.get(b)! - scores.get(a)!);
  }
  const limit = Math.max(1, Math.floor(options.limit));
  const kept = ranked.slice(0, limit);
  const seedEntry = entries[0]!;
  if (!kept.includes(seedEntry)) kept[kept.length - 1] = seedEntry;
  return kept.map((e) => e.link);
}
