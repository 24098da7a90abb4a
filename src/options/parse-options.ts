import { matches, selectAll } from 'hast-util-select';
import { z } from 'zod';
import { limits } from '../limits.ts';

/** Formats a parse can produce; `json` is the only one with extra fields. */
const simpleFormat = (type: string) => z.strictObject({ type: z.literal(type) });

const jsonFormat = z.strictObject({
  type: z.literal('json'),
  schema: z
    .record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })
    .optional()
    .describe('A JSON Schema for the output.'),
  prompt: z
    .string()
    .max(10_000, { error: 'must be at most 10000 characters' })
    .optional()
    .describe('The prompt for the JSON output.'),
});

export const formatTypes = ['markdown', 'summary', 'html', 'rawHtml', 'links', 'images', 'json'] as const;

/** Format types that only make sense for a live page; parse refuses them by name. */
export const scrapeOnlyFormats = [
  'screenshot',
  'branding',
  'changeTracking',
  'product',
  'menu',
  'question',
  'highlights',
  'query',
  'audio',
  'video',
  'attributes',
  'rawBase64',
] as const;

export const formatObject = z.discriminatedUnion(
  'type',
  [
    simpleFormat('markdown'),
    simpleFormat('summary'),
    simpleFormat('html'),
    simpleFormat('rawHtml'),
    simpleFormat('links'),
    simpleFormat('images'),
    jsonFormat,
  ],
  { error: `must be one of ${formatTypes.join(', ')}` },
);

/** `"markdown"` is shorthand for `{type:"markdown"}`. */
const format = z.preprocess((v) => (typeof v === 'string' ? { type: v } : v), formatObject);

const flag = (description: string) =>
  z.boolean({ error: 'must be true or false' }).optional().describe(description);

const pdfParser = z.strictObject({
  type: z.literal('pdf'),
  mode: z
    .enum(['fast', 'auto', 'ocr'], { error: 'must be one of fast, auto, ocr' })
    .default('auto')
    .describe('fast: text only; auto: text first, OCR fallback; ocr: OCR on every page.'),
  maxPages: z
    .number({ error: 'must be an integer from 1 to 10000' })
    .int({ error: 'must be an integer from 1 to 10000' })
    .min(1, { error: 'must be an integer from 1 to 10000' })
    .max(10_000, { error: 'must be an integer from 1 to 10000' })
    .optional()
    .describe('Limits how many PDF pages are parsed.'),
  pages: flag("Add `pages`: each physical page's Markdown, alongside the document's."),
  pageMarkdown: flag('Old name of `pages`, still accepted.'),
  blocks: flag('Add `blocks`: per page, the typed layout blocks with boxes and reading order.'),
  pageMarkers: flag('Join the pages in `markdown` with `---` and `<!-- page N -->` between them.'),
});

/** Raster images OCR'd as one-page documents (a TIFF: one page per frame); takes no options. */
const imageParser = z.strictObject({ type: z.literal('image') });

export const parserTypes = ['pdf', 'image'] as const;
/** `"pdf"` is shorthand for `{type:"pdf"}`, `"image"` for `{type:"image"}`. */
const parser = z.preprocess(
  (v) => (typeof v === 'string' ? { type: v } : v),
  z.discriminatedUnion('type', [pdfParser, imageParser], {
    error: `must be ${parserTypes.map((t) => `"${t}"`).join(' or ')}`,
  }),
);
export type PdfParserOptions = z.output<typeof pdfParser>;

export const piiEntities = ['PERSON', 'EMAIL', 'PHONE', 'LOCATION', 'FINANCIAL', 'SECRET'] as const;
const piiOptions = z.strictObject({
  mode: z
    .enum(['accurate', 'aggressive', 'fast'], { error: 'must be one of fast, aggressive, accurate' })
    .default('accurate'),
  entities: z.array(z.enum(piiEntities, { error: `must be one of ${piiEntities.join(', ')}` })).optional(),
  replaceStyle: z
    .enum(['tag', 'mask', 'remove'], { error: 'must be one of tag, mask, remove' })
    .default('tag'),
});

/** Integrations upstream accepts; anything starting with `_` is a private one. */
const integrations = [
  'dify',
  'zapier',
  'pipedream',
  'raycast',
  'langchain',
  'crewai',
  'llamaindex',
  'n8n',
  'camelai',
  'make',
  'flowise',
  'metagpt',
  'relevanceai',
  'viasocket',
  'cli',
  'hermes',
  'gstack',
  'prometheus',
] as const;

/** A CSS selector is valid when hast-util-select can compile it. */
function isSelector(selector: string): boolean {
  try {
    matches(selector, { type: 'element', tagName: 'div', properties: {}, children: [] });
    return true;
  } catch {
    return false;
  }
}
/** A selector, combinators included, that hast-util-select can run over a whole tree. */
function isTreeSelector(selector: string): boolean {
  try {
    selectAll(selector, { type: 'root', children: [] });
    return true;
  } catch {
    return false;
  }
}

/**
 * Scrape's `attributes` format (jobs-and-formats §9.6): for each selector, in request order, the
 * values of one attribute of the elements it picks in the cleaned HTML.
 */
export const attributesFormat = z.strictObject({
  type: z.literal('attributes'),
  selectors: z
    .array(
      z.strictObject({
        selector: z
          .string({ error: 'must be a string' })
          .min(1, { error: 'must not be empty' })
          .refine(isTreeSelector, { error: 'must be a valid CSS selector' }),
        attribute: z
          .string({ error: 'must be a string' })
          .regex(/^[^\s"'>/=]+$/, { error: 'must be an attribute name' }),
      }),
      { error: 'must be an array of {selector, attribute} objects' },
    )
    .max(limits.attributeSelectors, { error: `must list at most ${limits.attributeSelectors} selectors` }),
});
export type AttributesFormat = z.output<typeof attributesFormat>;

const queryText = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(10_000, { error: 'must be at most 10000 characters' });
/** Scrape's `question` format (jobs-and-formats §9.5): a short answer from the page, as `answer`. */
export const questionFormat = z.strictObject({ type: z.literal('question'), question: queryText });
/** Scrape's `highlights` format: the page's passages that bear on a query, verbatim, as `highlights`. */
export const highlightsFormat = z.strictObject({ type: z.literal('highlights'), query: queryText });
export type QuestionFormat = z.output<typeof questionFormat>;
/** Scrape's `product` format (jobs-and-formats §9.3): the page's product, as `product`. */
export const productFormat = z.strictObject({ type: z.literal('product') });
export type ProductFormat = z.output<typeof productFormat>;
/** Scrape's `menu` format (jobs-and-formats §9.4): the page's menu, as `menu`. */
export const menuFormat = z.strictObject({ type: z.literal('menu') });
export type MenuFormat = z.output<typeof menuFormat>;
export type HighlightsFormat = z.output<typeof highlightsFormat>;
/**
 * Scrape's deprecated `query` format: `freeform` (the default) answers as `question` does,
 * `directQuote` with the page's own passages, as `highlights` picks them; either as `answer`.
 */
export const queryFormat = z.strictObject({
  type: z.literal('query'),
  prompt: queryText,
  mode: z
    .enum(['freeform', 'directQuote'], { error: 'must be "freeform" or "directQuote"' })
    .default('freeform'),
});
export type QueryFormat = z.output<typeof queryFormat>;

const selectorList = z.array(
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .refine(isSelector, { error: 'must be a valid CSS selector' }),
  { error: 'must be an array of CSS selectors' },
);

const bool = (fallback: boolean, description: string) =>
  z.boolean({ error: 'must be true or false' }).default(fallback).describe(description);

export const parseOptionsSchema = z
  .strictObject({
    formats: z
      .array(format, { error: 'must be an array of format names or objects' })
      .default([{ type: 'markdown' }])
      .describe('Outputs to produce.'),
    onlyMainContent: bool(true, 'Return only the main content of HTML pages.'),
    includeTags: selectorList.optional().describe('CSS selectors of the elements to keep.'),
    excludeTags: selectorList.optional().describe('CSS selectors of the elements to remove.'),
    headers: z
      .record(z.string(), z.string(), { error: 'must be an object of string header values' })
      .optional()
      .describe('Headers for additional network requests.'),
    timeout: z
      .number({ error: `must be an integer from ${limits.timeoutMinMs} to ${limits.timeoutMaxMs}` })
      .int({ error: `must be an integer from ${limits.timeoutMinMs} to ${limits.timeoutMaxMs}` })
      .min(limits.timeoutMinMs, {
        error: `must be an integer from ${limits.timeoutMinMs} to ${limits.timeoutMaxMs}`,
      })
      .max(limits.timeoutMaxMs, {
        error: `must be an integer from ${limits.timeoutMinMs} to ${limits.timeoutMaxMs}`,
      })
      .default(limits.timeoutDefaultMs)
      .describe('Deadline in milliseconds, time spent queued included.'),
    parsers: z
      .array(parser, { error: 'must be an array of parser names or objects' })
      .default([{ type: 'pdf', mode: 'auto' }, { type: 'image' }])
      .describe('Which parsers may run, and their settings: an upload no listed parser reads is refused.'),
    skipTlsVerification: bool(true, 'Skip TLS verification for additional requests.'),
    removeBase64Images: bool(true, 'Replace base64 images with alt-text placeholders.'),
    blockAds: bool(true, 'Ad and cookie-popup blocking.'),
    redactPII: z
      .union([z.boolean(), piiOptions], { error: 'must be true, false or a PII options object' })
      .default(false)
      .describe('Redact personal information from the Markdown.'),
    proxy: z.string({ error: 'must be "basic" or "auto"' }).optional(),
    origin: z.string({ error: 'must be a string' }).max(256).default('api'),
    integration: z
      .string({ error: 'must be a string or null' })
      .refine((v) => v.startsWith('_') || (integrations as readonly string[]).includes(v), {
        error: `Invalid enum value. Expected ${integrations.join(', ')}, or a value starting with _`,
      })
      .nullable()
      .optional(),
    auditMetadata: z
      .strictObject({
        username: z
          .string({ error: 'must be a string' })
          .max(1024, { error: 'must be at most 1024 characters' }),
      })
      .optional()
      .describe('User attribution for audit events.'),
    zeroDataRetention: bool(false, 'Keep no content of this parse anywhere.'),
    // Scrape-only options: accepted by the schema so that they can be refused by name.
    actions: z.array(z.unknown()).optional(),
    waitFor: z.number().optional(),
    location: z.unknown().optional(),
    mobile: z.boolean().optional(),
    minAge: z.number().optional(),
    // Cache options upstream accepts and overrides for uploads, which are never cached.
    maxAge: z
      .number({ error: 'must be a non-negative integer (milliseconds)' })
      .int({ error: 'must be a non-negative integer (milliseconds)' })
      .min(0, { error: 'must be a non-negative integer (milliseconds)' })
      .optional()
      .transform(() => 0)
      .describe('Accepted as upstream does; an upload is never cached, so it is always 0.'),
    storeInCache: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .transform(() => false)
      .describe('Accepted as upstream does; an upload is never stored in a cache.'),
    fastMode: z.boolean().optional(),
  })
  .describe('Parse options');

/**
 * What a conversion is asked for: parse's options, whose formats may also hold those a fetched
 * page alone can ask for and the worker makes (scrape's `attributes`, `question`, `highlights`,
 * `product`, `menu`).
 */
export type ParseOptions = Omit<z.output<typeof parseOptionsSchema>, 'formats'> & {
  formats: (
    | z.output<typeof formatObject>
    | AttributesFormat
    | QuestionFormat
    | HighlightsFormat
    | QueryFormat
    | ProductFormat
    | MenuFormat
  )[];
};
