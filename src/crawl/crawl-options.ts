import { z } from 'zod';
import { limits } from '../limits.ts';
import { httpUrl, scrapeBodySchema } from '../options/scrape-options.ts';

function isRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

const pathPatterns = (what: string) =>
  z
    .array(z.string().min(1).max(1_000).refine(isRegex, { error: 'must be a valid regular expression' }))
    .max(100)
    .optional()
    .describe(`Regular expressions matched against each URL's pathname (e.g. "^/blog/.*"): ${what}.`);

const flag = (description: string) => z.boolean().optional().describe(description);

/**
 * The crawl options a natural-language prompt can set (behaviour doc §9, the v2 crawl option
 * names), each optional: a preview sets only what the prompt implies. The same schema checks the
 * model's answer and, as JSON Schema, tells the model what to answer.
 */
/**
 * Formats a crawl's pages can be asked for by name. json is left out: it needs a schema or a
 * prompt of its own, which a crawl request in a sentence does not give.
 */
export const crawlFormats = [
  'markdown',
  'summary',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
] as const;

export const crawlOptionsSchema = z.strictObject({
  includePaths: pathPatterns('only pages whose path matches one are crawled'),
  excludePaths: pathPatterns('pages whose path matches one are skipped'),
  maxDiscoveryDepth: z
    .number()
    .int()
    .min(0)
    .max(100)
    .optional()
    .describe(
      'How many link hops from the start page are followed (0: the start page and the sitemap only).',
    ),
  limit: z.number().int().min(1).max(100_000).optional().describe('The most pages to crawl.'),
  crawlEntireDomain: flag(
    'Follow links to pages outside the start URL’s path (siblings and parents), not only below it.',
  ),
  allowExternalLinks: flag('Follow links to other websites.'),
  allowSubdomains: flag('Follow links to subdomains of the start URL’s domain.'),
  sitemap: z
    .enum(['include', 'skip', 'only'])
    .optional()
    .describe(
      'include: use the sitemap as well as links; skip: ignore it; only: crawl only the sitemap’s URLs.',
    ),
  ignoreQueryParameters: flag('Treat URLs that differ only in their query string as one page.'),
  deduplicateSimilarURLs: flag('Treat near-identical URLs (www., trailing slash, index pages) as one page.'),
  delay: z.number().min(0).max(3_600).optional().describe('Seconds to wait between requests.'),
  scrapeOptions: z
    .strictObject({
      formats: z.array(z.enum(crawlFormats)).min(1).max(crawlFormats.length).optional(),
      location: scrapeBodySchema.shape.location,
    })
    .optional()
    .describe('How each page is scraped: only when the request names formats, a language or a country.'),
});

export type CrawlOptions = z.output<typeof crawlOptionsSchema>;

/** A preview's body. Not strict, as upstream's: the SDK's `origin` and other extra keys are dropped. */
export const previewRequestSchema = z.object({
  url: httpUrl.describe('Where the crawl would start; a URL without a scheme is taken as http.'),
  prompt: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(limits.previewPromptChars, { error: `must be at most ${limits.previewPromptChars} characters` })
    .describe('What to crawl, in natural language.'),
});
