import { z } from 'zod';
import { crawlOptionsSchema, previewRequestSchema } from '../crawl/crawl-options.ts';
import { formats } from '../detect/formats.ts';
import { formatTypes, parseOptionsSchema, parserTypes } from '../options/parse-options.ts';
import { scrapeBodySchema } from '../options/scrape-options.ts';
import { addCodeSamples } from './code-samples.ts';
import { createSessionBody, executeBody } from './interact-schemas.ts';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; items?: JsonSchema };

/** Options the schema accepts only to refuse them by name; not part of the parse interface. */
const refusedOptions = ['actions', 'waitFor', 'location', 'mobile', 'minAge', 'fastMode'];
/** The same for scrape: lockdown (cached data only), accepted only as false, and fastMode, which changes nothing. */
const refusedScrapeOptions = ['lockdown', 'fastMode'];

/** An options schema as JSON Schema, from the very zod schema that validates requests. */
function optionsJsonSchema(options: z.ZodType, refused: readonly string[]): JsonSchema {
  const { $schema: _, ...schema } = z.toJSONSchema(options, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  const props = schema.properties!;
  for (const key of refused) delete props[key];
  // The string shorthands are accepted by preprocessing, which JSON Schema cannot see.
  const formatItems = props.formats!.items!;
  props.formats!.items = { anyOf: [{ type: 'string', enum: [...formatTypes] }, formatItems] };
  const parserItems = props.parsers!.items!;
  props.parsers!.items = { anyOf: [{ type: 'string', enum: [...parserTypes] }, parserItems] };
  return schema;
}

const errorBody = (code?: string): JsonSchema => ({
  type: 'object',
  required: ['success', 'error'],
  properties: {
    success: { type: 'boolean', const: false },
    ...(code ? { code: { type: 'string', examples: [code] } } : { code: { type: 'string' } }),
    error: { type: 'string' },
    details: {},
  },
});

const errorOnly: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' } },
};

function inputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  return rest;
}

const sessionFields: Record<string, JsonSchema> = {
  id: { type: 'string', description: 'UUIDv7' },
  status: { type: 'string', enum: ['active', 'destroyed'] },
  cdpUrl: { type: 'string', description: 'WebSocket URL for CDP, with the session token' },
  liveViewUrl: { type: 'string' },
  interactiveLiveViewUrl: { type: 'string' },
  streamWebView: { type: 'boolean' },
  createdAt: { type: 'string', format: 'date-time' },
  lastActivity: { type: 'string', format: 'date-time' },
};

const object = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties });
const boolean: JsonSchema = { type: 'boolean' };
const string: JsonSchema = { type: 'string' };
const integer: JsonSchema = { type: 'integer' };

const number: JsonSchema = { type: 'number' };
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const box: JsonSchema = {
  type: 'array',
  items: number,
  minItems: 4,
  maxItems: 4,
  description: '[x0, y0, x1, y1] in PDF points, origin at the top left of the page',
};

/** The per-page fields of `data`, present for PDFs when the pdf parser's options ask for them. */
const pagedOutputs: Record<string, JsonSchema> = {
  pages: {
    type: 'array',
    description: 'Each physical page parsed, with its Markdown (pdf parser option `pages`)',
    items: object({ pageNumber: integer, markdown: string }),
  },
  blocks: {
    type: 'array',
    description: 'Each page parsed, with its layout blocks in reading order (pdf parser option `blocks`)',
    items: object({
      pageNumber: integer,
      width: nullable(number),
      height: nullable(number),
      status: { type: 'string', enum: ['ok', 'failed'] },
      items: {
        type: 'array',
        items: object({
          id: { type: 'string', examples: ['p3-b5'] },
          type: {
            type: 'string',
            enum: ['heading', 'paragraph', 'list', 'table', 'code', 'figure', 'header', 'footer'],
          },
          label: { type: ['string', 'null'], examples: ['h2'] },
          bbox: nullable(box),
          content: string,
          markdownSpan: {
            ...nullable({ type: 'array', items: integer, minItems: 2, maxItems: 2 }),
            description: '[start, end) UTF-16 offsets of the block in `markdown`; null when it is not there',
          },
          readingOrder: integer,
          source: { type: ['string', 'null'], enum: ['text-layer', 'ocr', null] },
          confidence: object({ layout: nullable(number), ocr: nullable(number) }),
        }),
      },
    }),
  },
};

/** The interact session routes (also served under /v2/browser). */
function interactPaths(json: (schema: JsonSchema) => Record<string, unknown>): Record<string, unknown> {
  const session = { $ref: '#/components/schemas/InteractSession' };
  const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
  const sessionErrors = {
    '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
    '403': { description: "Another team's session", content: json(errorBody()) },
    '404': { description: 'Browser session not found.', content: json(errorBody()) },
  };
  return {
    '/v2/interact': {
      post: {
        operationId: 'createInteractSession',
        summary: 'Start a headless Chromium session driven over CDP',
        requestBody: { content: json({ $ref: '#/components/schemas/CreateInteractSession' }) },
        responses: {
          '200': {
            description: 'The session and its URLs',
            content: json(
              object({
                success: boolean,
                id: sessionFields.id!,
                cdpUrl: sessionFields.cdpUrl!,
                liveViewUrl: sessionFields.liveViewUrl!,
                interactiveLiveViewUrl: sessionFields.interactiveLiveViewUrl!,
                expiresAt: { type: 'string', format: 'date-time' },
              }),
            ),
          },
          '400': { description: 'Invalid request', content: json(errorBody('BAD_REQUEST')) },
          '409': { description: 'The profile already has a writer', content: json(errorBody()) },
          '429': { description: 'Session cap or free-memory floor reached', content: json(errorOnly) },
          '502': { description: 'The browser did not start', content: json(errorBody()) },
        },
      },
      get: {
        operationId: 'listInteractSessions',
        summary: "The team's sessions, newest first",
        parameters: [
          { name: 'status', in: 'query', schema: { type: 'string', enum: ['active', 'destroyed'] } },
        ],
        responses: {
          '200': {
            description: 'Sessions',
            content: json(object({ success: boolean, sessions: { type: 'array', items: session } })),
          },
        },
      },
    },
    '/v2/interact/{id}': {
      get: {
        operationId: 'getInteractSession',
        parameters: id,
        responses: {
          '200': {
            description: 'The session, with when it expires and, once ended, when and why',
            content: json(
              object({
                success: boolean,
                ...sessionFields,
                expiresAt: { type: 'string', format: 'date-time' },
                closedAt: { type: ['string', 'null'], format: 'date-time' },
                closeReason: { type: ['string', 'null'] },
              }),
            ),
          },
          ...sessionErrors,
        },
      },
      delete: {
        operationId: 'deleteInteractSession',
        summary: 'End a session (idempotent)',
        parameters: id,
        responses: {
          '200': {
            description: 'Ended',
            content: json(object({ success: boolean, status: string, sessionDurationMs: integer })),
          },
          ...sessionErrors,
        },
      },
    },
    '/v2/interact/{id}/execute': {
      post: {
        operationId: 'executeInInteractSession',
        summary: 'Run Node code with Playwright against the session (when the operator enables it)',
        parameters: id,
        requestBody: { content: json(inputSchema(executeBody)) },
        responses: {
          '200': {
            description: 'What the code printed and returned',
            content: json(
              object({
                success: boolean,
                stdout: string,
                result: string,
                stderr: string,
                exitCode: integer,
                killed: boolean,
                error: string,
              }),
            ),
          },
          ...sessionErrors,
          '410': { description: 'Browser session has been destroyed.', content: json(errorBody()) },
        },
      },
    },
    '/v2/interact/profiles/{name}': {
      delete: {
        operationId: 'deleteInteractProfile',
        summary: "Delete one of the team's saved profiles",
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'Deleted', content: json(object({ success: boolean })) },
          '404': { description: 'Profile not found.', content: json(errorBody()) },
          '409': { description: 'An active session uses the profile', content: json(errorBody()) },
        },
      },
    },
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
  /** What parse answers, and scrape too, since a fetched page is converted as an upload is. */
  const documentResponses: Record<string, { description: string; content: Record<string, unknown> }> = {
    '200': {
      description: 'The parsed document in the v2 envelope',
      content: json({
        type: 'object',
        required: ['success', 'data'],
        properties: {
          success: { type: 'boolean' },
          data: { type: 'object', properties: pagedOutputs },
        },
      }),
    },
    '400': {
      description: 'Invalid request or refused document',
      content: json(errorBody('BAD_REQUEST')),
    },
    '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
    '402': { description: 'Payment required', content: json(errorOnly) },
    '408': { description: 'Timeout', content: json(errorBody('SCRAPE_TIMEOUT')) },
    '429': { description: 'Rate or concurrency limit exceeded', content: json(errorOnly) },
    '500': { description: 'Unexpected server error', content: json(errorBody('UNKNOWN_ERROR')) },
    '501': {
      description: 'A requested feature is not implemented',
      content: json(errorBody('NOT_IMPLEMENTED')),
    },
  };
  const document = {
    openapi: '3.1.0',
    info: {
      title: 'Quire',
      version: '2',
      description:
        'Firecrawl-compatible document parsing, scraping over HTTP(S) and interact sessions. Every /v2 route needs `Authorization: Bearer <key>`, except the session URLs handed out by create, which carry their own token. Every /v2/interact path is also served under /v2/browser.',
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ParseOptions: optionsJsonSchema(parseOptionsSchema, refusedOptions),
        ScrapeRequest: optionsJsonSchema(scrapeBodySchema, refusedScrapeOptions),
        CrawlParamsPreviewRequest: inputSchema(previewRequestSchema),
        CrawlOptions: inputSchema(crawlOptionsSchema),
        CreateInteractSession: inputSchema(createSessionBody),
        InteractSession: object(sessionFields),
      },
    },
    security: [{ bearerAuth: [] }],
    paths: {
      '/health': {
        get: {
          operationId: 'health',
          security: [],
          responses: { '200': { description: 'Ready', content: json({ type: 'object' }) } },
        },
      },
      ...interactPaths(json),
      '/v2/parse': {
        post: {
          operationId: 'parseFile',
          summary: 'Upload a file and get its parsed content',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: {
                    file: {
                      type: 'string',
                      format: 'binary',
                      description: `At most 50 MB. Extensions: ${formats.flatMap((f) => f.extensions).join(', ')}.`,
                    },
                    options: { $ref: '#/components/schemas/ParseOptions' },
                  },
                },
                encoding: { options: { contentType: 'application/json' } },
              },
            },
          },
          responses: documentResponses,
        },
      },
      '/v2/crawl/params-preview': {
        post: {
          operationId: 'crawlParamsPreview',
          summary:
            'The crawl options a natural-language prompt implies, read by the configured model, or by rules when there is none or it fails',
          requestBody: {
            required: true,
            content: json({ $ref: '#/components/schemas/CrawlParamsPreviewRequest' }),
          },
          responses: {
            '200': {
              description:
                '`data` is the start URL and the options the prompt implies, and no others; `warning` says when the rule-based reader read the prompt instead of a model',
              content: json(
                object({
                  success: boolean,
                  data: {
                    allOf: [object({ url: string }), { $ref: '#/components/schemas/CrawlOptions' }],
                  },
                  warning: string,
                }),
              ),
            },
            '400': {
              description:
                'Invalid request ("Invalid request parameters: …"), or "Failed to process natural language prompt. Please try rephrasing." when neither the model nor the rules read any option in the prompt',
              content: json(errorBody()),
            },
            '401': documentResponses['401']!,
            '403': {
              description: 'The URL leads to a private or loopback address',
              content: json(errorBody()),
            },
            '429': documentResponses['429']!,
          },
        },
      },
      '/v2/scrape': {
        post: {
          operationId: 'scrapeAndExtractFromUrl',
          summary:
            'Fetch a URL over HTTP(S) and convert the page or document as parse does (no browser rendering)',
          requestBody: { required: true, content: json({ $ref: '#/components/schemas/ScrapeRequest' }) },
          responses: {
            ...documentResponses,
            '200': {
              description:
                "The converted page, with `sourceURL`, the final `url`, the origin's `statusCode` and `contentType` in its metadata; or `success: false` with SCRAPE_DNS_RESOLUTION_ERROR when the name does not resolve (as upstream answers)",
              content: documentResponses['200']!.content,
            },
            '400': {
              description:
                'Invalid request, a refused document, an option this build lacks (SCRAPE_UNSUPPORTED_OPTIONS), or an action that failed (SCRAPE_ACTION_ERROR)',
              content: json(errorBody('BAD_REQUEST')),
            },
            '403': {
              description: 'The URL or a redirect leads to a private or loopback address',
              content: json(errorBody()),
            },
            '500': {
              description:
                'The site failed (SCRAPE_SITE_ERROR, SCRAPE_SSL_ERROR), or an unexpected server error',
              content: json(errorBody('SCRAPE_SITE_ERROR')),
            },
          },
        },
      },
    },
  };
  addCodeSamples(document.paths);
  return document;
}
