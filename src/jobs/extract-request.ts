import { z } from 'zod';
import { isJsonObject, type JsonObject } from '../enrich/json.ts';
import { schemaProblem } from '../enrich/schema-validator.ts';
import { badRequest } from '../errors.ts';
import { limits } from '../limits.ts';
import { httpUrl } from '../options/scrape-options.ts';
import { validationError } from '../options/validate.ts';
import { callerKeys, checkScrapeOptions } from './job-requests.ts';

const flag = (description: string) =>
  z.boolean({ error: 'must be true or false' }).optional().describe(description);

const promptText = z
  .string({ error: 'must be a string' })
  .max(limits.extractPromptChars, { error: `must be at most ${limits.extractPromptChars} characters` })
  .optional();

/** POST /v2/extract's body (jobs-and-formats §7): strict, so a misspelt option is refused, not ignored. */
export const extractBodySchema = z.strictObject({
  urls: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be an array of URLs' })
    .min(1, { error: 'must hold at least one URL' })
    .max(limits.extractMaxUrls, {
      error: `Maximum of ${limits.extractMaxUrls} URLs allowed per request while in beta.`,
    })
    .optional()
    .describe(
      "The pages to read. A URL ending in /* stands for its site: the site's map (sitemaps and links), ranked by the prompt's words, cut to limit.",
    ),
  prompt: promptText.describe('What to extract, in natural language.'),
  systemPrompt: promptText.describe("Put before the prompt in each page's extraction."),
  schema: z
    .record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })
    .optional()
    .describe('The JSON Schema of the answer; without a language model, the offline extractor fills it.'),
  limit: z
    .number({ error: 'must be a positive integer' })
    .int({ error: 'must be a positive integer' })
    .positive({ error: 'must be a positive integer' })
    .max(limits.extractMaxWildcardPages, { error: `must be at most ${limits.extractMaxWildcardPages}` })
    .optional()
    .describe(`Pages each /* URL expands to (default ${limits.extractWildcardPages}).`),
  enableWebSearch: flag('Refused when true: Quire has no web search.'),
  allowExternalLinks: flag("Let a /* URL's map keep links to other sites."),
  includeSubdomains: flag("Let a /* URL's map keep subdomains (default true)."),
  ignoreSitemap: flag("Map a /* URL from its start page's links only, not its sitemaps."),
  showSources: flag('Add `sources`: for each field of the answer, the pages it came from.'),
  ignoreInvalidURLs: flag(
    'false: an invalid URL refuses the request (400) instead of being listed in invalidURLs.',
  ),
  scrapeOptions: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("How each page is fetched (a scrape's options); its formats are the extract's own."),
  timeout: z
    .number({ error: 'must be a positive number of milliseconds' })
    .int({ error: 'must be a positive number of milliseconds' })
    .positive({ error: 'must be a positive number of milliseconds' })
    .optional()
    .describe('Milliseconds after which no more pages are read; the answer merges the pages read by then.'),
  agent: z.unknown().optional(),
  webhook: z.unknown().optional(),
  ...callerKeys,
});

/** What an extract job keeps in its options and runs by. */
export interface ExtractSpec {
  /** The system prompt and the prompt, one text. */
  prompt: string | undefined;
  schema: JsonObject | undefined;
  showSources: boolean;
  /**
   * How a page is read: `json`, a json format (the model's, or the offline extractor's by the
   * schema); `question`, without a model or a schema, the sentences that best answer the prompt.
   */
  reading: 'json' | 'question';
  /** The URLs as given, in order; a `/*` URL is mapped when the job starts. */
  urls: string[];
  /** How a `/*` URL is mapped. */
  map: { limit: number; includeSubdomains: boolean; ignoreSitemap: boolean; allowExternalLinks: boolean };
  /** When the job stops reading pages (ISO); undefined: when they are all read. */
  deadline: string | undefined;
}

export interface ExtractRequest {
  spec: Omit<ExtractSpec, 'reading' | 'deadline'>;
  timeout: number | undefined;
  scrapeOptions: Record<string, unknown>;
  /** Entries of `urls` that are not http(s) URLs, unless ignoreInvalidURLs is false. */
  invalidURLs: string[];
}

const WILDCARD = '/*';
export const isWildcard = (url: string) => url.endsWith(WILDCARD);

/** The formats an extract reads each page with: what its answer is merged from. */
export function pageFormats(spec: Pick<ExtractSpec, 'prompt' | 'schema' | 'reading'>): object[] {
  if (spec.reading === 'question') return [{ type: 'question', question: spec.prompt }];
  return [{ type: 'json', ...(spec.schema ? { schema: spec.schema } : {}), prompt: spec.prompt }];
}

export function validateExtractBody(raw: unknown): ExtractRequest {
  if (!isJsonObject(raw))
    throw badRequest('The request body must be a JSON object with "urls" and a "prompt" or "schema".');
  const parsed = extractBodySchema.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const body = parsed.data;
  if (body.enableWebSearch)
    throw badRequest('body.enableWebSearch: Quire has no web search; list the pages to read in body.urls.');
  if (body.agent !== undefined)
    throw badRequest('body.agent: Quire has no browsing agent; extract reads the pages in body.urls.');
  if (body.webhook !== undefined)
    throw badRequest('body.webhook: extract sends no webhooks; poll GET /v2/extract/{id} for its status.');
  if (!body.urls) {
    if (body.prompt !== undefined)
      throw badRequest('body.urls is required: Quire has no web search to find pages for a prompt alone.');
    throw badRequest("Either 'urls' or 'prompt' must be provided.");
  }
  if (body.prompt === undefined && body.schema === undefined)
    throw badRequest('body.prompt or body.schema is required: what to extract from the pages.');
  const prompt = [body.systemPrompt, body.prompt].filter((p) => p !== undefined).join('\n\n') || undefined;
  if ((prompt?.length ?? 0) > limits.extractPromptChars)
    throw badRequest(
      `body.systemPrompt and body.prompt together must be at most ${limits.extractPromptChars} characters`,
    );
  const schema = body.schema as JsonObject | undefined;
  const problem = schema && schemaProblem(schema);
  if (problem) throw badRequest(`body.schema ${problem}`);
  const urls: string[] = [];
  const invalidURLs: string[] = [];
  body.urls.forEach((url, i) => {
    const wildcard = isWildcard(url);
    const checked = httpUrl.safeParse(wildcard ? url.slice(0, -1) : url);
    if (checked.success) urls.push(wildcard ? `${checked.data.replace(/\/$/, '')}${WILDCARD}` : checked.data);
    else if (body.ignoreInvalidURLs === false)
      throw badRequest(
        `body.urls[${i}] must be an http or https URL, not ${JSON.stringify(url.slice(0, 200))}`,
      );
    else invalidURLs.push(url);
  });
  if (urls.length === 0) throw badRequest('No valid URLs provided: every entry of body.urls is invalid.');
  const scrapeOptions = body.scrapeOptions ?? {};
  // Checked with the formats the pages will have, so a page never fails on what was accepted here.
  checkScrapeOptions(
    { ...scrapeOptions, formats: pageFormats({ prompt, schema, reading: schema ? 'json' : 'question' }) },
    'body.scrapeOptions',
  );
  return {
    spec: {
      prompt,
      schema,
      showSources: body.showSources ?? false,
      urls,
      map: {
        limit: body.limit ?? limits.extractWildcardPages,
        includeSubdomains: body.includeSubdomains ?? true,
        ignoreSitemap: body.ignoreSitemap ?? false,
        allowExternalLinks: body.allowExternalLinks ?? false,
      },
    },
    timeout: body.timeout,
    scrapeOptions,
    invalidURLs,
  };
}
