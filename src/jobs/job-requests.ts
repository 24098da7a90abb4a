import { z } from 'zod';
import { nestsRepeats } from '../crawl/regex-safety.ts';
import { ApiError, badRequest } from '../errors.ts';
import { limits } from '../limits.ts';
import { httpUrl, type ScrapeRequest, validateScrapeBody } from '../options/scrape-options.ts';
import { validationError } from '../options/validate.ts';
import type { ExtractSpec } from './extract-request.ts';
import { type WebhookSpec, webhookSchema } from './webhook-spec.ts';

const flag = (description: string) =>
  z.boolean({ error: 'must be true or false' }).optional().describe(description);

/** Upstream compiles each pattern as a JavaScript RegExp and answers its message when one does not. */
const patterns = z
  .array(z.string({ error: 'must be a string' }).max(limits.crawlPatternChars), {
    error: 'must be an array of regular expressions',
  })
  .max(limits.crawlPatterns)
  .optional();

/** Pages a job fetches at once, for crawls and batches alike. */
const maxConcurrency = z
  .number({ error: 'must be a number' })
  .int()
  .positive()
  .optional()
  .describe(
    `Pages fetched at once (default ${limits.crawlDefaultConcurrency}, at most ${limits.crawlMaxConcurrency} whatever is asked).`,
  );

/** Keys every SDK call may add (`origin`, `integration`), accepted and not used. */
export const callerKeys = {
  origin: z.string({ error: 'must be a string' }).max(256).optional(),
  integration: z.string({ error: 'must be a string' }).max(256).optional(),
};

/** POST /v2/crawl's body (jobs-and-formats §2.1): strict, so a misspelt option is refused, not ignored. */
export const crawlBodySchema = z.strictObject({
  url: httpUrl.describe('Where the crawl starts; a URL without a scheme is taken as http.'),
  prompt: z
    .string({ error: 'must be a string' })
    .max(limits.previewPromptChars)
    .optional()
    .describe(
      'What to crawl, in natural language, read as POST /v2/crawl/params-preview reads it; the options it implies fill only those the request leaves unset.',
    ),
  includePaths: patterns,
  excludePaths: patterns,
  regexOnFullURL: flag('Match includePaths and excludePaths against the whole URL, not only its path.'),
  maxDiscoveryDepth: z
    .number({ error: 'must be a whole number of hops, 0 or more' })
    .int({ error: 'must be a whole number of hops, 0 or more' })
    .min(0, { error: 'must be a whole number of hops, 0 or more' })
    .optional()
    .describe('Link hops from the start page that are followed (sitemap URLs are hop 0).'),
  limit: z
    .number({ error: `must be an integer from 1 to ${limits.crawlMaxPages}` })
    .int({ error: `must be an integer from 1 to ${limits.crawlMaxPages}` })
    .min(1, { error: `must be an integer from 1 to ${limits.crawlMaxPages}` })
    .max(limits.crawlMaxPages, { error: `must be an integer from 1 to ${limits.crawlMaxPages}` })
    .optional()
    .describe(
      `The most pages queued (default ${limits.crawlDefaultPages}), cut to the team's credit balance.`,
    ),
  crawlEntireDomain: flag('Follow links outside the start path.'),
  allowExternalLinks: flag('Follow links to other sites (from pages of the start site only).'),
  allowSubdomains: flag('Follow links to subdomains of the start site.'),
  ignoreRobotsTxt: flag('Fetch what robots.txt forbids.'),
  robotsUserAgent: z.string({ error: 'must be a string' }).max(256).optional(),
  sitemap: z
    .enum(['include', 'skip', 'only'], { error: 'must be "include", "skip" or "only"' })
    .optional()
    .describe(
      "include (default): the sitemaps' URLs and every page's links; skip: links only; only: the sitemaps' URLs only.",
    ),
  deduplicateSimilarURLs: flag('Treat www./bare, http/https, trailing slashes and index pages as one page.'),
  ignoreQueryParameters: flag('Treat URLs that differ only in their query as one page.'),
  delay: z
    .number({ error: `must be a number of seconds above 0, at most ${limits.crawlMaxDelayS}` })
    .positive({ error: `must be a number of seconds above 0, at most ${limits.crawlMaxDelayS}` })
    .max(limits.crawlMaxDelayS, {
      error: `must be a number of seconds above 0, at most ${limits.crawlMaxDelayS}`,
    })
    .optional()
    .describe("Seconds between pages, fetched one at a time; unset: robots.txt's Crawl-delay, if any."),
  maxConcurrency,
  webhook: webhookSchema.optional(),
  scrapeOptions: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "What each page is fetched and converted with: a scrape request's options, checked when the crawl starts.",
    ),
  zeroDataRetention: flag(
    'Refused when true: a job keeps its documents in the store until they are read and purged.',
  ),
  ...callerKeys,
});

/** The crawler options a crawl runs with, every default filled in. */
export interface CrawlerOptions {
  includePaths: string[];
  excludePaths: string[];
  regexOnFullURL: boolean;
  maxDiscoveryDepth: number | undefined;
  limit: number;
  crawlEntireDomain: boolean;
  allowExternalLinks: boolean;
  allowSubdomains: boolean;
  ignoreRobotsTxt: boolean;
  sitemap: 'include' | 'skip' | 'only';
  deduplicateSimilarURLs: boolean;
  ignoreQueryParameters: boolean;
  /** Seconds between pages (one page at a time); undefined: robots.txt's Crawl-delay, if any. */
  delay: number | undefined;
  maxConcurrency: number | undefined;
}

/** What a job keeps of its request and runs every page with. */
export interface JobOptions {
  crawler: CrawlerOptions | null;
  /** The scrape options as given (validated), each page's request built from them and its URL. */
  scrapeOptions: Record<string, unknown>;
  /** Pages fetched at once; undefined: limits.crawlDefaultConcurrency. */
  maxConcurrency: number | undefined;
  /** Set for an extract: a batch whose pages' answers are merged into one JSON value at its end. */
  extract?: ExtractSpec;
}

export interface CrawlRequest {
  url: string;
  prompt: string | undefined;
  /** The keys the caller set explicitly (a prompt fills only the others). */
  given: Set<string>;
  options: JobOptions;
  webhook: WebhookSpec | undefined;
  zeroDataRetention: boolean;
}

/**
 * The scrape request of each of a job's pages: its scrape options (checked when the job was made)
 * read once, the page's URL put in. The URLs are the crawler's or the batch's, checked already.
 */
export function pageScrapes(options: JobOptions): (url: string) => ScrapeRequest {
  const template = validateScrapeBody({ ...options.scrapeOptions, url: 'https://example.com/' });
  return (url) => ({ ...template, url, sourceURL: url });
}

/**
 * The scrape options a job's pages use, checked as a scrape's body would be (the same messages,
 * rooted at `root`), so that a crawl is refused at once rather than failing on every page.
 */
export function checkScrapeOptions(raw: Record<string, unknown>, root: string): ScrapeRequest {
  try {
    return validateScrapeBody({ ...raw, url: 'https://example.com/' });
  } catch (error) {
    if (error instanceof ApiError && error.status === 400)
      throw new ApiError(400, error.code, error.message.replaceAll('body.', `${root}.`), {
        details: error.details,
      });
    throw error;
  }
}

/**
 * A path pattern the crawler may run on every URL it finds: it must compile, and must not nest
 * repeats, which could hold the API process on a URL the crawled site chooses (regex-safety.ts).
 */
function compiles(source: string, field: string): void {
  try {
    new RegExp(source);
  } catch (error) {
    throw badRequest(`body.${field}: ${(error as Error).message}`);
  }
  if (nestsRepeats(source))
    throw badRequest(
      `body.${field} nests repeats (such as (a+)+), which can take exponential time to match: write it without a repeat inside a repeat`,
    );
}

export function validateCrawlBody(raw: unknown): CrawlRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest('The request body must be a JSON object with at least a "url".');
  const parsed = crawlBodySchema.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const body = parsed.data;
  for (const field of ['includePaths', 'excludePaths'] as const)
    for (const [i, pattern] of (body[field] ?? []).entries()) compiles(pattern, `${field}[${i}]`);
  const scrapeOptions = body.scrapeOptions ?? {};
  const checked = checkScrapeOptions(scrapeOptions, 'body.scrapeOptions');
  const given = new Set(Object.keys(raw).filter((k) => (raw as Record<string, unknown>)[k] != null));
  return {
    url: body.url,
    prompt: body.prompt,
    given,
    webhook: body.webhook,
    zeroDataRetention: body.zeroDataRetention ?? checked.options.zeroDataRetention,
    options: {
      crawler: {
        includePaths: body.includePaths ?? [],
        excludePaths: body.excludePaths ?? [],
        regexOnFullURL: body.regexOnFullURL ?? false,
        maxDiscoveryDepth: body.maxDiscoveryDepth,
        limit: body.limit ?? limits.crawlDefaultPages,
        crawlEntireDomain: body.crawlEntireDomain ?? false,
        allowExternalLinks: body.allowExternalLinks ?? false,
        allowSubdomains: body.allowSubdomains ?? false,
        ignoreRobotsTxt: body.ignoreRobotsTxt ?? false,
        sitemap: body.sitemap ?? 'include',
        deduplicateSimilarURLs: body.deduplicateSimilarURLs ?? true,
        ignoreQueryParameters: body.ignoreQueryParameters ?? false,
        delay: body.delay,
        maxConcurrency: body.maxConcurrency,
      },
      scrapeOptions,
      maxConcurrency: body.maxConcurrency,
    },
  };
}

/** The batch scrape's own keys; everything else in its body is a scrape option (the SDK spreads them). */
export const batchSchema = z.object({
  urls: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be an array of URLs' })
    .min(1, { error: 'must hold at least one URL' })
    .max(limits.batchMaxUrls, { error: `may hold at most ${limits.batchMaxUrls} URLs` })
    .describe(
      'The pages to scrape, each as often as it is listed; entries that are not http(s) URLs are skipped and listed in invalidURLs.',
    ),
  ignoreInvalidURLs: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe('false: an invalid URL refuses the whole request (400) instead of being skipped.'),
  webhook: webhookSchema.optional(),
  maxConcurrency,
  appendToId: z
    .uuid({ error: 'must be a batch scrape id' })
    .optional()
    .describe('Add the URLs to this batch scrape of yours instead of starting another.'),
});

export interface BatchRequest {
  urls: string[];
  /** Present unless the caller sent ignoreInvalidURLs: false (upstream's quirk, §6). */
  invalidURLs: string[] | undefined;
  options: JobOptions;
  maxConcurrency: number | undefined;
  webhook: WebhookSpec | undefined;
  appendToId: string | undefined;
  zeroDataRetention: boolean;
}

export function validateBatchBody(raw: unknown): BatchRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest('The request body must be a JSON object with "urls".');
  const { urls, ignoreInvalidURLs, webhook, maxConcurrency, appendToId, ...scrapeOptions } = raw as Record<
    string,
    unknown
  >;
  const parsed = batchSchema.safeParse({ urls, ignoreInvalidURLs, webhook, maxConcurrency, appendToId });
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const checked = checkScrapeOptions(scrapeOptions, 'body');
  const valid: string[] = [];
  const invalid: string[] = [];
  parsed.data.urls.forEach((url, i) => {
    const one = httpUrl.safeParse(url);
    if (one.success) valid.push(one.data);
    else if (parsed.data.ignoreInvalidURLs === false)
      throw badRequest(
        `body.urls[${i}] must be an http or https URL, not ${JSON.stringify(url.slice(0, 200))}`,
      );
    else invalid.push(url);
  });
  if (valid.length === 0) throw badRequest('No valid URLs provided: every entry of body.urls is invalid.');
  return {
    urls: valid,
    invalidURLs: parsed.data.ignoreInvalidURLs === false ? undefined : invalid,
    options: { crawler: null, scrapeOptions, maxConcurrency: parsed.data.maxConcurrency },
    maxConcurrency: parsed.data.maxConcurrency,
    webhook: parsed.data.webhook,
    appendToId: parsed.data.appendToId,
    zeroDataRetention: checked.options.zeroDataRetention,
  };
}

/** POST /v2/map's body (§5): strict, with the crawl keys upstream inherits accepted. */
export const mapBodySchema = z.strictObject({
  url: httpUrl.describe('The site to map; a URL without a scheme is taken as http.'),
  search: z
    .string({ error: 'must be a string' })
    .max(limits.mapSearchChars)
    .optional()
    .describe('Words to rank the links by: found in the path first, then in a title, then in the host.'),
  sitemap: z
    .enum(['include', 'skip', 'only'], { error: 'must be "include", "skip" or "only"' })
    .optional()
    .describe(
      "include (default): the sitemaps' URLs and the start page's links; skip: links only; only: the sitemaps' URLs only.",
    ),
  includeSubdomains: flag('Keep URLs of subdomains (default true; false keeps the start host).'),
  ignoreQueryParameters: flag('Strip the query from every URL (default true).'),
  limit: z
    .number({ error: `must be an integer from 1 to ${limits.mapMaxLinks}` })
    .int({ error: `must be an integer from 1 to ${limits.mapMaxLinks}` })
    .min(1, { error: `must be an integer from 1 to ${limits.mapMaxLinks}` })
    .max(limits.mapMaxLinks, { error: `must be an integer from 1 to ${limits.mapMaxLinks}` })
    .optional()
    .describe(`The most links answered (default ${limits.mapDefaultLinks}).`),
  timeout: z
    .number({ error: 'must be a number' })
    .int()
    .positive()
    .optional()
    .describe(
      `Milliseconds before the map ends with 408 MAP_TIMEOUT (default ${limits.mapDefaultTimeoutMs}).`,
    ),
  location: z
    .strictObject({ country: z.string().optional(), languages: z.array(z.string()).optional() })
    .optional(),
  filterByPath: flag('Keep only URLs under the start path (default true).'),
  useIndex: flag('Accepted; Quire has no index beyond the site itself.'),
  ignoreCache: flag('Accepted; map always reads the site.'),
  headers: z.record(z.string(), z.string()).optional(),
  allowExternalLinks: flag('Keep links to other sites.'),
  includePaths: patterns,
  excludePaths: patterns,
  ...callerKeys,
});

export interface MapRequest {
  url: string;
  search: string | undefined;
  sitemap: 'include' | 'skip' | 'only';
  includeSubdomains: boolean;
  ignoreQueryParameters: boolean;
  limit: number;
  timeout: number | undefined;
  filterByPath: boolean;
  allowExternalLinks: boolean;
  headers: Record<string, string>;
}

export function validateMapBody(raw: unknown): MapRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw badRequest('The request body must be a JSON object with at least a "url".');
  const parsed = mapBodySchema.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const body = parsed.data;
  return {
    url: body.url,
    search: body.search?.trim() || undefined,
    sitemap: body.sitemap ?? 'include',
    includeSubdomains: body.includeSubdomains ?? true,
    ignoreQueryParameters: body.ignoreQueryParameters ?? true,
    limit: body.limit ?? limits.mapDefaultLinks,
    timeout: body.timeout,
    filterByPath: body.filterByPath ?? true,
    allowExternalLinks: body.allowExternalLinks ?? false,
    headers: body.headers ?? {},
  };
}
