import { validateHeaderName, validateHeaderValue } from 'node:http';
import { countries } from 'countries-list';
import { z } from 'zod';
import type { JsonObject } from '../enrich/json.ts';
import { schemaProblem } from '../enrich/schema-validator.ts';
import { ApiError, badRequest } from '../errors.ts';
import { limits } from '../limits.ts';
import {
  attributesFormat,
  formatObject,
  highlightsFormat,
  menuFormat,
  type ParseOptions,
  parseOptionsSchema,
  productFormat,
  queryFormat,
  questionFormat,
  scrapeOnlyFormats,
} from './parse-options.ts';
import { checkParsedOptions, validationError } from './validate.ts';

/** `example.com/a` means `http://example.com/a`, as upstream reads a URL without a scheme. */
function withScheme(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const url = value.trim();
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Headers that frame the request or pick its target are Quire's to set from the URL: a caller's
 * would break the exchange (Content-Length on a GET) or speak to a proxy that is not there.
 */
const reservedHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

/**
 * Why a header is refused, or undefined (node:http's own checks, so the request cannot throw
 * later); `setBy` says where Quire's own value of a reserved one comes from.
 */
function headerProblem(name: string, value: string, setBy: string): string | undefined {
  if (reservedHeaders.has(name.toLowerCase())) return `${name} is set by Quire ${setBy}`;
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Headers a caller adds to a request Quire sends (a scrape's, a webhook's): valid, unreserved, bounded. */
export function headerRecord(setBy: string) {
  return z
    .record(z.string(), z.string({ error: 'must be a string' }), {
      error: 'must be an object of string header values',
    })
    .superRefine((all, ctx) => {
      let bytes = 0;
      for (const [name, value] of Object.entries(all)) {
        bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
        const problem = headerProblem(name, value, setBy);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: `is refused: ${problem}` });
      }
      if (bytes > limits.scrapeHeaderBytes)
        ctx.addIssue({
          code: 'custom',
          message: `may take at most ${limits.scrapeHeaderBytes} bytes together`,
        });
    });
}

const headers = headerRecord('from the URL')
  .optional()
  .describe('Headers sent with the request (Host, Content-Length and other framing headers excepted).');

function isLanguageTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

const location = z
  .strictObject({
    country: z
      .string({ error: 'must be an ISO 3166-1 alpha-2 country code' })
      .refine((c) => /^[a-z]{2}$/i.test(c) && c.toUpperCase() in countries, {
        error: 'must be an ISO 3166-1 alpha-2 country code',
      })
      .optional(),
    languages: z
      .array(z.string().refine(isLanguageTag, { error: 'must be a language tag such as "de" or "pt-BR"' }), {
        error: 'must be an array of language tags',
      })
      .max(16, { error: 'may name at most 16 languages' })
      .optional(),
  })
  .optional()
  .describe("Sent as Accept-Language: the languages, else the country's own language.");

const milliseconds = z
  .number({ error: 'must be a non-negative integer (milliseconds)' })
  .int({ error: 'must be a non-negative integer (milliseconds)' })
  .min(0, { error: 'must be a non-negative integer (milliseconds)' });

const dimension = (max: number) =>
  z
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` });

/** A picture of the page: PNG, or JPEG when a quality is given. */
const screenshotFields = {
  fullPage: z.boolean({ error: 'must be true or false' }).default(false),
  quality: z
    .number({ error: 'must be an integer from 0 to 100' })
    .int({ error: 'must be an integer from 0 to 100' })
    .min(0, { error: 'must be an integer from 0 to 100' })
    .max(100, { error: 'must be an integer from 0 to 100' })
    .optional(),
  viewport: z.strictObject({ width: dimension(7680), height: dimension(4320) }).optional(),
};

const screenshotFormat = z.strictObject({ type: z.literal('screenshot'), ...screenshotFields });
export type ScreenshotSpec = Omit<z.output<typeof screenshotFormat>, 'type'>;

/** The `changeTracking` format (jobs-and-formats §9.1): compare with the team's last scrape of the page. */
const changeTrackingFormat = z.strictObject({
  type: z.literal('changeTracking'),
  modes: z
    .array(z.enum(['git-diff', 'json'], { error: 'must be "git-diff" or "json"' }), {
      error: 'must be an array of modes',
    })
    .default([]),
  schema: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }).optional(),
  prompt: z
    .string({ error: 'must be a string' })
    .max(10_000, { error: 'must be at most 10000 characters' })
    .optional(),
  tag: z
    .string({ error: 'must be a string or null' })
    .min(1, { error: 'must not be empty (null for none)' })
    .max(256, { error: 'must be at most 256 characters' })
    .nullable()
    .default(null),
});
export type ChangeTrackingSpec = Omit<z.output<typeof changeTrackingFormat>, 'type'>;

/** The `branding` format: the rendered page's look, read from its computed styles. */
const brandingFormat = z.strictObject({ type: z.literal('branding') });

/**
 * Parse's formats, the screenshot, attributes and changeTracking; `"screenshot"` is shorthand
 * for `{type:"screenshot"}`, `"changeTracking"` for the format with its defaults.
 */
const scrapeFormat = z.preprocess(
  (v) => (typeof v === 'string' ? { type: v } : v),
  z.discriminatedUnion(
    'type',
    [
      screenshotFormat,
      brandingFormat,
      attributesFormat,
      changeTrackingFormat,
      questionFormat,
      highlightsFormat,
      queryFormat,
      productFormat,
      menuFormat,
      formatObject,
    ],
    {
      error:
        'must be one of markdown, summary, html, rawHtml, links, images, json, screenshot, branding, attributes, changeTracking, question, highlights, query, product, menu',
    },
  ),
);

const nonEmpty = z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });

/** Upstream's actions, each as strict as an option. */
const action = z.discriminatedUnion(
  'type',
  [
    z
      .strictObject({
        type: z.literal('wait'),
        milliseconds: z
          .number({ error: 'must be a positive integer' })
          .int({ error: 'must be a positive integer' })
          .min(1, { error: 'must be a positive integer' })
          .optional(),
        selector: nonEmpty.optional(),
      })
      .refine((a) => (a.milliseconds === undefined) !== (a.selector === undefined), {
        error: 'needs either milliseconds or selector, not both',
      }),
    z.strictObject({ type: z.literal('click'), selector: nonEmpty, all: z.boolean().default(false) }),
    z.strictObject({ type: z.literal('write'), text: z.string({ error: 'must be a string' }) }),
    z.strictObject({ type: z.literal('press'), key: nonEmpty }),
    z.strictObject({
      type: z.literal('scroll'),
      direction: z.enum(['up', 'down'], { error: 'must be "up" or "down"' }).default('down'),
      selector: nonEmpty.optional(),
    }),
    z.strictObject({ type: z.literal('screenshot'), ...screenshotFields }),
    z.strictObject({ type: z.literal('scrape') }),
    z.strictObject({ type: z.literal('executeJavascript'), script: nonEmpty }),
    z.strictObject({
      type: z.literal('pdf'),
      format: z
        .enum(['A0', 'A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'Letter', 'Legal', 'Tabloid', 'Ledger'], {
          error: 'must be one of A0-A6, Letter, Legal, Tabloid, Ledger',
        })
        .default('Letter'),
      landscape: z.boolean({ error: 'must be true or false' }).default(false),
      scale: z
        .number({ error: 'must be a number from 0.1 to 2' })
        .min(0.1, { error: 'must be a number from 0.1 to 2' })
        .max(2, { error: 'must be a number from 0.1 to 2' })
        .default(1),
    }),
  ],
  { error: 'must be one of wait, click, write, press, scroll, screenshot, scrape, executeJavascript, pdf' },
);
export type Action = z.output<typeof action>;

/** A URL to fetch: http or https, one without a scheme taken as http. */
export const httpUrl = z.preprocess(
  withScheme,
  z
    .string({ error: 'must be a string' })
    .max(limits.scrapeUrlChars, { error: `must be at most ${limits.scrapeUrlChars} characters` })
    .refine(isHttpUrl, { error: 'must be an http or https URL' }),
);

export const scrapeBodySchema = parseOptionsSchema
  .extend({
    url: httpUrl.describe('The page or document to fetch; a URL without a scheme is taken as http.'),
    headers,
    location,
    formats: z
      .array(scrapeFormat, { error: 'must be an array of format names or objects' })
      .default([{ type: 'markdown' }])
      .describe('Outputs to produce; screenshot renders the page.'),
    proxy: z
      .enum(['basic', 'auto'], { error: 'must be "basic" or "auto"' })
      .optional()
      .describe('Both fetch directly from this host.'),
    waitFor: milliseconds
      .optional()
      .describe('Milliseconds to wait after the page loaded; renders the page.'),
    mobile: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe("A phone's viewport and User-Agent; renders the page."),
    actions: z
      .array(action, { error: 'must be an array of actions' })
      .max(limits.renderActions, { error: `may hold at most ${limits.renderActions} actions` })
      .optional()
      .describe('Steps run on the rendered page before it is read.'),
    lockdown: z.boolean({ error: 'must be true or false' }).optional(),
    fastMode: z.boolean({ error: 'must be true or false' }).optional(),
    // Scrape's own: parse's versions force 0 and false, since an upload is never cached.
    maxAge: milliseconds
      .default(limits.scrapeCacheDefaultMaxAgeMs)
      .describe(
        'Milliseconds a cached answer may be old to be returned instead of fetching (default two days); 0 always fetches.',
      ),
    storeInCache: z
      .boolean({ error: 'must be true or false' })
      .default(true)
      .describe('Whether the answer is stored for later scrapes with maxAge.'),
  })
  .omit({ minAge: true })
  .describe('Scrape request');

/** What the fetch needs beyond the conversion's options. */
export interface FetchSettings {
  headers: Record<string, string>;
  /** Accept-Language from `location`, when it gave one. */
  acceptLanguage: string | undefined;
  skipTlsVerification: boolean;
}

/** What rendering the page in a browser needs beyond the fetch's settings. */
export interface RenderSettings {
  /** Options that only a browser can honour, so the page renders whatever the fetch shows. */
  required: boolean;
  waitFor: number;
  mobile: boolean;
  /** The browser's locale from `location`, when it gave one. */
  locale: string | undefined;
  screenshot: ScreenshotSpec | undefined;
  actions: Action[];
  /** Whether the page's computed styles are read for the branding format. */
  branding: boolean;
}

/** How the scrape uses the cache (src/scrape/scrape-cache.ts), before zero data retention is applied. */
export interface CacheSettings {
  /** How old a cached answer may be, in ms; 0: never read from the cache. */
  maxAge: number;
  /** Whether a fresh answer is stored. */
  store: boolean;
}

export interface ScrapeRequest {
  cache: CacheSettings;
  /** The URL to fetch, with a scheme. */
  url: string;
  /** The URL as the caller wrote it, for `metadata.sourceURL` (upstream's unnormalised one). */
  sourceURL: string;
  fetch: FetchSettings;
  render: RenderSettings;
  /** The conversion's options: the screenshot (the browser makes it) and changeTracking taken out of `formats`. */
  options: ParseOptions;
  /** What changeTracking asks for, when it is in `formats`. */
  changeTracking?: ChangeTrackingSpec;
}

const notBuilt = 'is not available in this Quire build yet';
/** The formats only a fetched page can ask for that this build makes. */
const builtScrapeFormats = new Set([
  'screenshot',
  'branding',
  'attributes',
  'changeTracking',
  'question',
  'highlights',
  'query',
  'product',
  'menu',
]);

/**
 * What this build cannot do, each named with why: a browser profile (scrapes render in a fresh
 * context), cached data only (minAge, lockdown), a proxy pool's, and the formats not built.
 * Refused rather than ignored, so that nobody takes a plain fetch for what they asked.
 */
function refusals(raw: Record<string, unknown>): { code: 'SCRAPE_UNSUPPORTED_OPTIONS'; message: string }[] {
  const out: ReturnType<typeof refusals> = [];
  const refuse = (message: string) => out.push({ code: 'SCRAPE_UNSUPPORTED_OPTIONS', message });
  if (Array.isArray(raw.formats)) {
    raw.formats.forEach((f, i) => {
      const type = typeof f === 'string' ? f : (f as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || builtScrapeFormats.has(type)) return;
      if (type === 'audio' || type === 'video')
        refuse(
          `body.formats[${i}] ${type} needs a media downloader to extract the page's ${type} (upstream runs one), which Quire does not ship`,
        );
      else if ((scrapeOnlyFormats as readonly string[]).includes(type))
        refuse(`body.formats[${i}] ${type} ${notBuilt}`);
    });
  }
  if (raw.profile !== undefined)
    refuse(
      'body.profile (a saved browser profile) is not available for scrape: each scrape renders in a fresh browser context; use an interact session for a profile',
    );
  if (raw.minAge !== undefined)
    refuse(
      'body.minAge asks for cached data only, which this Quire build does not serve (maxAge is supported)',
    );
  if (raw.lockdown === true)
    refuse(
      'body.lockdown asks for cached data only, which this Quire build does not serve (maxAge is supported)',
    );
  if (typeof raw.proxy === 'string' && raw.proxy !== 'basic' && raw.proxy !== 'auto')
    refuse(
      `body.proxy "${raw.proxy}" is not available: Quire fetches directly from this host, so only "basic" and "auto" are supported`,
    );
  return out;
}

/** `de, fr;q=0.9`: the caller's languages in order; else the country's first language, with the country. */
export function acceptLanguage(where: z.output<typeof location>): string | undefined {
  if (!where) return undefined;
  let tags = where.languages ?? [];
  if (tags.length === 0 && where.country) {
    const country = where.country.toUpperCase() as keyof typeof countries;
    const language = countries[country].languages[0];
    if (language) tags = [`${language}-${country}`, language];
  }
  if (tags.length === 0) return undefined;
  return tags
    .map((tag, i) => (i === 0 ? tag : `${tag};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`))
    .join(', ');
}

/**
 * A scrape body, validated as strictly as parse's options (the same schema, messages and checks,
 * rooted at `body`), split into what the fetch needs and what the conversion takes.
 */
export function validateScrapeBody(raw: unknown): ScrapeRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw badRequest('The request body must be a JSON object with at least a "url".');
  }
  const refused = refusals(raw as Record<string, unknown>);
  if (refused.length > 0) {
    throw new ApiError(400, refused[0]!.code, `${refused.map((r) => r.message).join('; ')}.`);
  }
  const parsed = scrapeBodySchema.safeParse(raw);
  if (!parsed.success) throw validationError('body', parsed.error, raw);
  const { url, location: where, lockdown: _lockdown, formats, maxAge, storeInCache, ...rest } = parsed.data;
  const shots = formats.filter((f): f is z.output<typeof screenshotFormat> => f.type === 'screenshot');
  if (shots.length > 1) throw badRequest('body.formats may name screenshot once');
  const tracked = formats.filter(
    (f): f is z.output<typeof changeTrackingFormat> => f.type === 'changeTracking',
  );
  if (tracked.length > 1) throw badRequest('body.formats may name changeTracking once');
  if (formats.filter((f) => f.type === 'question' || f.type === 'query').length > 1)
    throw badRequest('body.formats: question and query both answer as `answer`; name one of them, once');
  const changeTracking = tracked[0] && {
    modes: tracked[0].modes,
    schema: tracked[0].schema,
    prompt: tracked[0].prompt,
    tag: tracked[0].tag,
  };
  if (changeTracking && !formats.some((f) => f.type === 'markdown'))
    throw badRequest('The changeTracking format requires the markdown format to be specified as well');
  const trackedSchema = changeTracking?.schema && schemaProblem(changeTracking.schema as JsonObject);
  if (trackedSchema)
    throw badRequest(`body.formats[${formats.indexOf(tracked[0]!)}].schema ${trackedSchema}`);
  const options: ParseOptions = {
    ...rest,
    // The conversion caches nothing itself, as for a parse; the route keeps them in `cache`.
    maxAge: 0,
    storeInCache: false,
    formats: formats.filter(
      (f): f is ParseOptions['formats'][number] =>
        f.type !== 'screenshot' && f.type !== 'changeTracking' && f.type !== 'branding',
    ),
  };
  checkParsedOptions(options, 'body');
  const given = (raw as { url: string }).url.trim();
  const language = acceptLanguage(where);
  const shot = shots[0];
  const screenshot = shot && { fullPage: shot.fullPage, quality: shot.quality, viewport: shot.viewport };
  const actions = rest.actions ?? [];
  const waitFor = rest.waitFor ?? 0;
  const mobile = rest.mobile ?? false;
  const branding = formats.some((f) => f.type === 'branding');
  return {
    cache: { maxAge, store: storeInCache },
    url,
    sourceURL: given,
    fetch: {
      headers: options.headers ?? {},
      acceptLanguage: language,
      skipTlsVerification: options.skipTlsVerification,
    },
    render: {
      required: waitFor > 0 || mobile || screenshot !== undefined || actions.length > 0 || branding,
      waitFor,
      mobile,
      locale: language?.split(',')[0]?.trim(),
      screenshot,
      actions,
      branding,
    },
    options,
    ...(changeTracking && { changeTracking }),
  };
}
