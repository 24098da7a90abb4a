import { validateHeaderName, validateHeaderValue } from 'node:http';
import { countries } from 'countries-list';
import { z } from 'zod';
import { ApiError, badRequest } from '../errors.ts';
import { limits } from '../limits.ts';
import { type ParseOptions, parseOptionsSchema, scrapeOnlyFormats } from './parse-options.ts';
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
export const reservedHeaders = new Set([
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

/** Why a header is refused, or undefined (node:http's own checks, so the request cannot throw later). */
function headerProblem(name: string, value: string): string | undefined {
  if (reservedHeaders.has(name.toLowerCase())) return `${name} is set by Quire from the URL`;
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const headers = z
  .record(z.string(), z.string({ error: 'must be a string' }), {
    error: 'must be an object of string header values',
  })
  .superRefine((all, ctx) => {
    let bytes = 0;
    for (const [name, value] of Object.entries(all)) {
      bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      const problem = headerProblem(name, value);
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: `is refused: ${problem}` });
    }
    if (bytes > limits.scrapeHeaderBytes)
      ctx.addIssue({
        code: 'custom',
        message: `may take at most ${limits.scrapeHeaderBytes} bytes together`,
      });
  })
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
    proxy: z
      .enum(['basic', 'auto'], { error: 'must be "basic" or "auto"' })
      .optional()
      .describe('Both fetch directly from this host.'),
    // Refused before the schema when they would need a browser or a cache; typed here so that a
    // harmless value (waitFor 0, mobile false, actions []) passes.
    waitFor: milliseconds.optional(),
    mobile: z.boolean({ error: 'must be true or false' }).optional(),
    actions: z.array(z.unknown(), { error: 'must be an array' }).optional(),
    lockdown: z.boolean({ error: 'must be true or false' }).optional(),
    fastMode: z.boolean({ error: 'must be true or false' }).optional(),
    // No cache in this build: every scrape fetches, and nothing is stored (parse's rules, in scrape's words).
    maxAge: parseOptionsSchema.shape.maxAge.describe(
      'Accepted; this build keeps no cache, so every scrape fetches the page.',
    ),
    storeInCache: parseOptionsSchema.shape.storeInCache.describe('Accepted; this build keeps no cache.'),
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

export interface ScrapeRequest {
  /** The URL to fetch, with a scheme. */
  url: string;
  /** The URL as the caller wrote it, for `metadata.sourceURL` (upstream's unnormalised one). */
  sourceURL: string;
  fetch: FetchSettings;
  options: ParseOptions;
}

const renders =
  'needs a rendered page, and this Quire build renders no pages yet (it fetches over plain HTTP)';
const notBuilt = 'is not available in this Quire build yet';

/** Formats a browser makes (a picture of the page, its computed styles). */
const browserFormats = new Set(['screenshot', 'branding']);

/**
 * What this build cannot do, each named with why: a browser's work (screenshot, actions, waitFor,
 * mobile, a profile), a cache's (minAge, lockdown), a proxy pool's, and the formats not built.
 * Refused rather than ignored, so that nobody takes a plain fetch for what they asked.
 */
function refusals(
  raw: Record<string, unknown>,
): { code: 'SCRAPE_ACTIONS_NOT_SUPPORTED' | 'SCRAPE_UNSUPPORTED_OPTIONS'; message: string }[] {
  const out: ReturnType<typeof refusals> = [];
  const refuse = (message: string) => out.push({ code: 'SCRAPE_UNSUPPORTED_OPTIONS', message });
  if (Array.isArray(raw.formats)) {
    raw.formats.forEach((f, i) => {
      const type = typeof f === 'string' ? f : (f as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !(scrapeOnlyFormats as readonly string[]).includes(type)) return;
      refuse(`body.formats[${i}] ${type} ${browserFormats.has(type) ? renders : notBuilt}`);
    });
  }
  if (Array.isArray(raw.actions) && raw.actions.length > 0)
    out.push({ code: 'SCRAPE_ACTIONS_NOT_SUPPORTED', message: `body.actions ${renders}` });
  if (typeof raw.waitFor === 'number' && raw.waitFor > 0) refuse(`body.waitFor ${renders}`);
  if (raw.mobile === true) refuse(`body.mobile ${renders}`);
  if (raw.profile !== undefined) refuse(`body.profile (a browser profile) ${renders}`);
  if (raw.minAge !== undefined)
    refuse('body.minAge asks for cached data only, and this Quire build keeps no cache');
  if (raw.lockdown === true)
    refuse('body.lockdown asks for cached data only, and this Quire build keeps no cache');
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
  const { url, location: where, lockdown: _lockdown, ...options } = parsed.data;
  checkParsedOptions(options, 'body');
  const given = (raw as { url: string }).url.trim();
  return {
    url,
    sourceURL: given,
    fetch: {
      headers: options.headers ?? {},
      acceptLanguage: acceptLanguage(where),
      skipTlsVerification: options.skipTlsVerification,
    },
    options,
  };
}
