import { z } from 'zod';
import { crawlOptionsSchema, previewRequestSchema } from '../crawl/crawl-options.ts';
import { formats } from '../detect/formats.ts';
import { extractBodySchema } from '../jobs/extract-request.ts';
import { batchSchema, crawlBodySchema, mapBodySchema } from '../jobs/job-requests.ts';
import { createMonitorSchema, updateMonitorSchema } from '../jobs/monitors/monitor-request.ts';
import { webhookEvents, webhookSchema } from '../jobs/webhook-spec.ts';
import { limits } from '../limits.ts';
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

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const hours = (ms: number) => ms / 3_600_000;
const mebibytes = (bytes: number) => bytes / 2 ** 20;

/**
 * A scrape request's options without its url, from the schema that validates scrape: what each
 * page of a crawl or batch scrape is fetched and converted with. Left open here and closed with
 * `unevaluatedProperties` where it is used, since a batch scrape's body holds its own keys too.
 */
function scrapeOptionsSchema(): JsonSchema {
  const { additionalProperties: _, ...schema } = optionsJsonSchema(
    scrapeBodySchema.omit({ url: true }),
    refusedScrapeOptions,
  );
  return {
    ...schema,
    description:
      'The options of a scrape request, without its url: each page is fetched and converted as POST /v2/scrape would with them. They are checked when the job starts, so a bad one is a 400 and not a failure on every page.',
  };
}

/**
 * A job request's schema, from the zod schema that validates it, with its `webhook` as the
 * Webhook component (whose URL shorthand preprocessing accepts out of JSON Schema's sight).
 */
function jobRequestSchema(schema: z.ZodType): JsonSchema {
  const json = inputSchema(schema);
  json.properties!.webhook = ref('Webhook');
  return json;
}

function crawlRequestSchema(): JsonSchema {
  const schema = jobRequestSchema(crawlBodySchema);
  const props = schema.properties!;
  props.scrapeOptions = {
    description: props.scrapeOptions!.description,
    allOf: [ref('ScrapeOptions')],
    unevaluatedProperties: false,
  };
  return schema;
}

/** The components the job routes' operations refer to. */
function jobSchemas(): Record<string, JsonSchema> {
  const events = webhookEvents.join(', ');
  const webhook = inputSchema(webhookSchema);
  return {
    ScrapeOptions: scrapeOptionsSchema(),
    CrawlRequest: crawlRequestSchema(),
    BatchScrapeRequest: {
      description:
        "The batch's own keys, and beside them the scrape options every URL is scraped with (flattened, as the SDKs send them).",
      allOf: [jobRequestSchema(batchSchema), ref('ScrapeOptions')],
      unevaluatedProperties: false,
    },
    MapRequest: inputSchema(mapBodySchema),
    ExtractRequest: inputSchema(extractBodySchema),
    Webhook: {
      description: `Where the job's events (${events}) are posted, each as \`{success, type, id, data, metadata, webhookId}\` with \`type\` such as \`crawl.page\` or \`batch_scrape.page\` (one per document, \`data: [document]\`); delivered in order per job and retried for 24 hours; with QUIRE_WEBHOOK_SECRET each carries \`X-Firecrawl-Signature: sha256=<HMAC-SHA256 of the body>\`.`,
      anyOf: [
        { ...webhook.properties!.url, description: 'The URL alone, short for `{"url": …}`' },
        {
          ...webhook,
          description: `The URL, headers sent with each delivery, metadata echoed in each payload, and the events wanted (every one when none are named; \`crawl.page\` or \`batch_scrape.page\` count as \`page\`).`,
        },
      ],
    },
    JobStatus: {
      type: 'object',
      required: ['success', 'status', 'completed', 'total', 'creditsUsed', 'expiresAt', 'data'],
      properties: {
        success: boolean,
        status: { type: 'string', enum: ['scraping', 'completed', 'cancelled', 'failed'] },
        completed: { type: 'integer', description: 'Documents finished' },
        total: {
          type: 'integer',
          description: 'Documents finished plus pages queued or in flight (failed pages are not counted)',
        },
        creditsUsed: integer,
        expiresAt: {
          type: 'string',
          format: 'date-time',
          description: `When the job and its documents are purged; each read moves it ${hours(limits.jobRetentionMs)} hours ahead`,
        },
        next: {
          type: 'string',
          format: 'uri',
          description:
            'The next page (this path with `?skip`, and `?limit` when given): present only while finished documents remain beyond this page, never merely because the job still runs',
        },
        warning: {
          type: 'string',
          description:
            'Once the job has ended, when robots.txt kept pages from being fetched (listed under `robotsBlocked` by the errors route)',
        },
        data: {
          type: 'array',
          items: ref('Document'),
          description: `Documents in the order they finished, from \`?skip\`: at most \`?limit\` of them (default ${limits.jobStatusPage}) and ${mebibytes(limits.jobStatusBytes)} MiB`,
        },
      },
    },
    JobErrors: {
      type: 'object',
      description: 'Without `success`, as upstream answers',
      required: ['errors', 'robotsBlocked'],
      properties: {
        errors: {
          type: 'array',
          description: 'Pages that failed',
          items: {
            type: 'object',
            required: ['id', 'timestamp', 'url', 'code', 'error'],
            properties: {
              id: { type: 'string', description: "The page's id" },
              timestamp: { type: 'string', format: 'date-time' },
              url: string,
              code: { type: ['string', 'null'], examples: ['SCRAPE_SITE_ERROR', 'INSUFFICIENT_CREDITS'] },
              error: string,
            },
          },
        },
        robotsBlocked: {
          type: 'array',
          items: string,
          description: 'URLs robots.txt kept the crawl from fetching',
        },
      },
    },
  };
}

/** The monitor API (src/http/routes/monitors.ts): paths, operations, and what each answers. */
function monitorOperations(json: (schema: JsonSchema) => Record<string, unknown>): Record<string, unknown> {
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const checkId = { name: 'checkId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const listing = [
    {
      name: 'limit',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: limits.monitorListMaxPage },
    },
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
  ];
  const answer = (description: string) => ({
    description,
    content: json(object({ success: boolean, data: { type: 'object' } })),
  });
  const errors = {
    '400': { description: 'Invalid request, naming `body.<field>`', content: json(errorBody('BAD_REQUEST')) },
    '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
    '404': { description: "Monitor not found (none, or another team's)", content: json(errorBody()) },
  };
  const body = (schema: JsonSchema) => ({ required: true, content: json(schema) });
  return {
    '/v2/monitor': {
      post: {
        operationId: 'createMonitor',
        summary: 'Create a monitor: pages or a crawl checked on a schedule, changes reported',
        description: `\`schedule\`: \`cron\` (five fields) or \`text\` ("every 30 minutes", "hourly", "daily at 9:00", "weekdays at 8am", "every monday at 17:30", "monthly on the 1st at noon"), in \`timezone\` (IANA, default UTC); never more often than every ${limits.monitorMinIntervalMs / 60_000} minutes. \`targets\`: \`{type: "scrape", urls, scrapeOptions}\` or \`{type: "crawl", url, crawlOptions, scrapeOptions}\`. Each check scrapes every target with changeTracking and lists each page as same, new, changed (with its diff), removed or error. \`webhook\`: \`{url, headers, metadata, events}\`, events \`changed\` (default: a check found a page new, changed or removed) and \`completed\` (every check), signed as job webhooks. Refused: search targets (no search engine), email notifications, \`judgeEnabled\`.`,
        requestBody: body(inputSchema(createMonitorSchema)),
        responses: { '200': answer('The monitor'), ...errors },
      },
      get: {
        operationId: 'listMonitors',
        summary: "The team's monitors, newest first",
        parameters: listing,
        responses: { '200': answer('The monitors (`data` is an array)'), '401': errors['401'] },
      },
    },
    '/v2/monitor/{id}': {
      get: {
        operationId: 'getMonitor',
        summary: 'One monitor, with its next run and its last check’s summary',
        parameters: [id],
        responses: { '200': answer('The monitor'), ...errors },
      },
      patch: {
        operationId: 'updateMonitor',
        summary: 'Change a monitor: name, schedule, targets, webhook, retention; pause or resume it',
        description: 'Pausing clears `nextRunAt`; resuming or a new schedule sets it from now.',
        parameters: [id],
        requestBody: body(inputSchema(updateMonitorSchema)),
        responses: { '200': answer('The monitor as changed'), ...errors },
      },
      delete: {
        operationId: 'deleteMonitor',
        summary: 'Delete a monitor and its checks',
        parameters: [id],
        responses: {
          '200': { description: 'Deleted', content: json(object({ success: boolean })) },
          ...errors,
        },
      },
    },
    '/v2/monitor/{id}/run': {
      post: {
        operationId: 'runMonitor',
        summary: 'Run a check now, outside the schedule (which stays as it was)',
        parameters: [id],
        responses: {
          '200': answer('The check, running'),
          ...errors,
          '409': { description: 'A check of this monitor is running', content: json(errorBody()) },
        },
      },
    },
    '/v2/monitor/{id}/checks': {
      get: {
        operationId: 'listMonitorChecks',
        summary: "The monitor's checks, newest first, each with its summary",
        parameters: [id, ...listing],
        responses: { '200': answer('The checks (`data` is an array)'), ...errors },
      },
    },
    '/v2/monitor/{id}/checks/{checkId}': {
      get: {
        operationId: 'getMonitorCheck',
        summary:
          'A check and a page of its pages (`?skip`, `?limit`, `?status`), with `next` while more remain',
        parameters: [
          id,
          checkId,
          { name: 'skip', in: 'query', schema: { type: 'integer', minimum: 0 } },
          {
            name: 'limit',
            in: 'query',
            schema: { type: 'integer', minimum: 1, maximum: limits.monitorCheckMaxPage },
          },
          {
            name: 'status',
            in: 'query',
            schema: { type: 'string', enum: ['same', 'new', 'changed', 'removed', 'error'] },
          },
        ],
        responses: { '200': answer('The check with `pages` and `next`'), ...errors },
      },
    },
  };
}

/** The WebSocket watcher (src/jobs/job-watcher.ts), served at each job's status path. */
const watcherDescription = `
**Watching over WebSocket.** The same path opened as a WebSocket (\`ws://…\`, the SDKs' \`watcher()\`) streams the job: the key as \`Authorization: Bearer\`, or else as the offered subprotocol (echoed, as the JS SDK requires). Messages: one \`{"type":"catchup","data":{success, status, total, completed, creditsUsed, expiresAt, data:[…]}}\` with the finished documents (up to ${mebibytes(limits.jobStatusBytes)} MiB; the rest follow at once), then \`{"type":"document","data":{…}}\` per document as it finishes (looked for every ${limits.jobWatchPollMs / 1000} s), and once the job has ended a \`{"type":"status",…}\` message with its final counts, then close 1000 \`{"type":"done"}\`. Refusals come after the upgrade, as close frames with a JSON reason: 3000 for a missing or unknown key; 1008 for an invalid id, a job not found, the rate limit, or more than ${limits.jobWatchersPerTeam} open watchers per team and API process; 1001 when Quire shuts down.`;

/** Crawl (and batch scrape) status, cancel and errors: one route each serves both kinds, by id. */
function jobOperations(
  json: (schema: JsonSchema) => Record<string, unknown>,
  kind: { path: string; name: string; ids: { status: string; cancel: string; errors: string } },
): Record<string, unknown> {
  const id = {
    name: 'id',
    in: 'path',
    required: true,
    description: `The id POST ${kind.path} answered (either kind's id works on either path, as upstream)`,
    schema: { type: 'string', format: 'uuid' },
  };
  const jobErrors = {
    '400': {
      description: 'Invalid job ID format. Job ID must be a valid UUID.',
      content: json(errorBody()),
    },
    '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
    '404': { description: "Job not found (none, or another team's)", content: json(errorBody()) },
  };
  return {
    [`${kind.path}/{id}`]: {
      get: {
        operationId: kind.ids.status,
        summary: `The ${kind.name}'s status and a page of its documents`,
        description: `The counts, and the documents finished so far a page at a time: \`?skip\` and \`?limit\`, followed by \`next\` while finished documents remain beyond the page. Each read moves \`expiresAt\` ${hours(limits.jobRetentionMs)} hours ahead; a job nobody reads for that long is purged.\n${watcherDescription}`,
        parameters: [
          id,
          {
            name: 'skip',
            in: 'query',
            description: 'Documents to pass over, in the order they finished',
            schema: { type: 'integer', minimum: 0, default: 0 },
          },
          {
            name: 'limit',
            in: 'query',
            description: 'Documents in this page',
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: limits.jobStatusMaxPage,
              default: limits.jobStatusPage,
            },
          },
        ],
        responses: {
          '200': { description: 'The status and a page of documents', content: json(ref('JobStatus')) },
          ...jobErrors,
          '400': {
            description:
              'Invalid job ID format ("Job ID must be a valid UUID."), or "Invalid pagination: …" for a `skip` or `limit` out of range',
            content: json(errorBody()),
          },
        },
      },
      delete: {
        operationId: kind.ids.cancel,
        summary: `Cancel the ${kind.name}`,
        description:
          'Pages in flight are stopped and not returned; finished documents stay readable until the job expires.',
        parameters: [id],
        responses: {
          '200': {
            description: 'Cancelled',
            content: json(object({ success: boolean, status: { type: 'string', const: 'cancelled' } })),
          },
          ...jobErrors,
          '409': { description: 'Crawl is already completed', content: json(errorBody()) },
        },
      },
    },
    [`${kind.path}/{id}/errors`]: {
      get: {
        operationId: kind.ids.errors,
        summary: `The ${kind.name}'s failed pages and the URLs robots.txt blocked`,
        parameters: [id],
        responses: {
          '200': { description: 'Errors and robots.txt blocks', content: json(ref('JobErrors')) },
          ...jobErrors,
        },
      },
    },
  };
}

/** Crawl, batch scrape and map (src/http/routes/jobs.ts and map.ts). */
function jobPaths(
  json: (schema: JsonSchema) => Record<string, unknown>,
  shared: Record<'401' | '402' | '429', unknown>,
): Record<string, unknown> {
  const jobStarted = (extra: Record<string, JsonSchema>): JsonSchema => ({
    type: 'object',
    required: ['success', 'id', 'url'],
    properties: {
      success: boolean,
      id: { type: 'string', format: 'uuid' },
      url: { type: 'string', format: 'uri', description: 'The status URL (also the WebSocket watcher)' },
      ...extra,
    },
  });
  const zdr =
    'Under `zeroDataRetention`, asked or forced by the team, each document is kept only until it is handed over (a status page once the job has ended, the watcher or a webhook), then deleted; `next` then has no `skip`.';
  return {
    '/v2/crawl': {
      post: {
        operationId: 'crawlUrls',
        summary: 'Crawl a site from a URL, as a job',
        description: `Answers at once with the job's id; the pages are fetched in the background, each as POST /v2/scrape would fetch it, from the start URL, the sitemaps and every page's links in scope, robots.txt obeyed. One page costs what a scrape of it costs; \`limit\` is cut to the team's credit balance. ${zdr}`,
        requestBody: { required: true, content: json(ref('CrawlRequest')) },
        responses: {
          '200': {
            description: 'Started',
            content: json(
              jobStarted({
                promptGeneratedOptions: {
                  description: 'With a prompt: the options it implied that the request left unset',
                  allOf: [ref('CrawlOptions')],
                },
                finalCrawlerOptions: {
                  type: 'object',
                  description:
                    'With a prompt: every crawler option the crawl runs with, defaults filled in, and its scrapeOptions',
                },
              }),
            ),
          },
          '400': {
            description:
              'Invalid request (naming `body.<field>` or `body.scrapeOptions.<field>`), a pattern that does not compile, or a prompt that neither the model nor the rules could read',
            content: json(errorBody('BAD_REQUEST')),
          },
          '401': shared['401'],
          '402': shared['402'],
          '403': {
            description:
              "Zero data retention where the team's policy forbids it, or, with a prompt, a start URL that leads to a private or loopback address",
            content: json(errorBody()),
          },
          '429': shared['429'],
        },
      },
    },
    '/v2/crawl/active': {
      get: {
        operationId: 'getActiveCrawls',
        summary: "The team's crawls still running",
        description: 'Also served at `/v2/crawl/ongoing`.',
        responses: {
          '200': {
            description: 'Running crawls, in the casing upstream answers',
            content: json(
              object({
                success: boolean,
                crawls: {
                  type: 'array',
                  items: object({
                    id: { type: 'string', format: 'uuid' },
                    teamId: string,
                    url: string,
                    created_at: { type: 'string', format: 'date-time' },
                    options: {
                      type: 'object',
                      description: 'The crawler options, defaults filled in, and scrapeOptions',
                    },
                  }),
                },
              }),
            ),
          },
          '401': shared['401'],
        },
      },
    },
    ...jobOperations(json, {
      path: '/v2/crawl',
      name: 'crawl',
      ids: { status: 'getCrawlStatus', cancel: 'cancelCrawl', errors: 'getCrawlErrors' },
    }),
    '/v2/batch/scrape': {
      post: {
        operationId: 'scrapeAndExtractFromUrls',
        summary: 'Scrape a list of URLs, as a job',
        description: `Answers at once with the job's id; each URL is scraped in the background as POST /v2/scrape would scrape it (the scrape cache too, \`maxAge\`), as often as it is listed. Invalid URLs are skipped and listed in \`invalidURLs\`, unless \`ignoreInvalidURLs\` is false. ${zdr}`,
        requestBody: { required: true, content: json(ref('BatchScrapeRequest')) },
        responses: {
          '200': {
            description: 'Started (or, with appendToId, the URLs added)',
            content: json(
              jobStarted({
                invalidURLs: {
                  type: 'array',
                  items: string,
                  description:
                    'The entries of `urls` that were skipped (absent when ignoreInvalidURLs is false)',
                },
              }),
            ),
          },
          '400': {
            description:
              'Invalid request (naming `body.<field>`), no valid URL at all, an invalid URL with ignoreInvalidURLs false, or appendToId with another zeroDataRetention than the batch’s',
            content: json(errorBody('BAD_REQUEST')),
          },
          '401': shared['401'],
          '402': shared['402'],
          '403': {
            description: "Zero data retention where the team's policy forbids it",
            content: json(errorBody()),
          },
          '404': {
            description: 'Job not found: appendToId names no batch scrape of yours',
            content: json(errorBody()),
          },
          '429': shared['429'],
        },
      },
    },
    ...jobOperations(json, {
      path: '/v2/batch/scrape',
      name: 'batch scrape',
      ids: { status: 'getBatchScrapeStatus', cancel: 'cancelBatchScrape', errors: 'getBatchScrapeErrors' },
    }),
    '/v2/extract': {
      post: {
        operationId: 'extractData',
        summary: 'Extract one JSON value from a list of pages, as a job',
        description: `Answers at once with the job's id. Each URL is scraped (\`scrapeOptions\`; a URL ending in \`/*\` stands for the first \`limit\` pages of its site's map, ranked by the prompt's words) and read for the prompt and schema: by the configured language model, else by the offline extractor when a schema is given, else as the sentences that best answer the prompt (\`data.answers\`). The pages' values are merged in the order the URLs were listed: objects field by field, lists joined without repeats, any other field the first page's that states it. Each page costs what its scrape costs. Refused under zero data retention (the pages are kept until the extract ends), and without \`urls\` (Quire has no web search).`,
        requestBody: { required: true, content: json(ref('ExtractRequest')) },
        responses: {
          '200': {
            description: 'Started',
            content: json(
              object({
                success: boolean,
                id: { type: 'string', format: 'uuid' },
                urlTrace: { type: 'array', items: string },
                invalidURLs: {
                  type: 'array',
                  items: string,
                  description: 'Entries of `urls` skipped as invalid',
                },
              }),
            ),
          },
          '400': {
            description:
              'Invalid request (naming `body.<field>`), an invalid JSON Schema, no valid URL, web search, an agent or a webhook asked for, or zero data retention',
            content: json(errorBody('BAD_REQUEST')),
          },
          '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
          '402': { description: 'The team has no credits left', content: json(errorBody()) },
        },
      },
    },
    '/v2/extract/{id}': {
      get: {
        operationId: 'getExtractStatus',
        summary: "The extract's status, and its answer once it has ended",
        description: `Always 200 for a job of yours: \`status\` is processing, completed or failed (\`success\` false only then, with \`error\`); \`data\` is \`[]\` until the extract ends. \`sources\` (with showSources) gives, for each field of the answer by its path (\`name\`, \`address.city\`, \`products[2]\`), the pages it came from; \`warnings\` say which pages could not be read and where pages disagreed.`,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: {
          '200': {
            description: 'The status',
            content: json(
              object({
                success: boolean,
                status: { type: 'string', enum: ['processing', 'completed', 'failed', 'cancelled'] },
                data: {},
                error: string,
                expiresAt: { type: 'string', format: 'date-time' },
                creditsUsed: { type: 'integer' },
                warnings: { type: 'array', items: string },
                sources: { type: 'object', additionalProperties: { type: 'array', items: string } },
              }),
            ),
          },
          '400': {
            description: 'Invalid job ID format. Job ID must be a valid UUID.',
            content: json(errorBody()),
          },
          '401': { description: 'Missing or unknown API key', content: json(errorBody()) },
          '404': {
            description: "Extract job not found (none, or another team's)",
            content: json(errorBody()),
          },
        },
      },
    },
    ...monitorOperations(json),
    '/v2/map': {
      post: {
        operationId: 'mapUrls',
        summary: "A site's URLs, from its sitemaps and its start page's links (one credit)",
        description:
          "Deduplicated, kept to the start's registrable domain and under its path, ranked by `search` when given, cut to `limit`. There is no search engine or web index behind it: only what the site itself lists and links.",
        requestBody: { required: true, content: json(ref('MapRequest')) },
        responses: {
          '200': {
            description: 'The links',
            content: json({
              type: 'object',
              required: ['success', 'links'],
              properties: {
                success: boolean,
                links: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['url'],
                    properties: { url: string, title: string, description: string },
                  },
                },
              },
            }),
          },
          '400': { description: 'Invalid request', content: json(errorBody('BAD_REQUEST')) },
          '401': shared['401'],
          '402': shared['402'],
          '403': {
            description: 'The URL leads to a private or loopback address',
            content: json(errorBody()),
          },
          '408': {
            description: 'The map did not finish within its timeout',
            content: json(errorBody('MAP_TIMEOUT')),
          },
          '429': shared['429'],
        },
      },
    },
  };
}

/** The team's usage, concurrency and queue (src/http/routes/team.ts). */
function teamPaths(
  json: (schema: JsonSchema) => Record<string, unknown>,
  shared: Record<'401' | '429', unknown>,
): Record<string, unknown> {
  const isoTime: JsonSchema = { type: 'string', format: 'date-time' };
  const unlimited = {
    ...boolean,
    description:
      'No limit applies: the remaining figure is then the largest exact JSON integer, since both SDKs require an integer there',
  };
  const usage = (unit: 'Credits' | 'Tokens', about: string) => ({
    get: {
      operationId: `get${unit.slice(0, -1)}Usage`,
      summary: `${unit} remaining and used this month`,
      description: `${about} The billing period is the calendar month, UTC.`,
      responses: {
        '200': {
          description: 'Usage',
          content: json(
            object({
              success: boolean,
              data: object({
                [`remaining${unit}`]: integer,
                unlimited,
                [`plan${unit}`]: { type: 'null', description: 'Quire has no plans' },
                billingPeriodStart: isoTime,
                billingPeriodEnd: isoTime,
                [`${unit.toLowerCase()}Used`]: integer,
              }),
            }),
          ),
        },
        '401': shared['401'],
        '429': shared['429'],
      },
    },
  });
  const historical = (unit: 'credits' | 'tokens') => ({
    get: {
      operationId: `get${unit === 'credits' ? 'Credit' : 'Token'}UsageHistorical`,
      summary: `${unit === 'credits' ? 'Credits' : 'Model tokens'} used per month`,
      description:
        'Months ascending, each from its first instant (UTC) to the next month’s; the current month ends null. With byApiKey, one row per key and month, the key named by its label or, without one, the start of the key.',
      parameters: [
        {
          name: 'byApiKey',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      ],
      responses: {
        '200': {
          description: 'Periods',
          content: json(
            object({
              success: boolean,
              periods: {
                type: 'array',
                items: object({
                  startDate: isoTime,
                  endDate: { anyOf: [isoTime, { type: 'null' }] },
                  apiKey: string,
                  [`${unit}Used`]: integer,
                }),
              },
            }),
          ),
        },
        '400': { description: 'byApiKey is neither true nor false', content: json(errorBody('BAD_REQUEST')) },
        '401': shared['401'],
        '429': shared['429'],
      },
    },
  });
  return {
    '/v2/team/credit-usage': usage(
      'Credits',
      'Credits are charged per answer (one, plus one per PDF page) whether or not the team has a balance; a team without one is unlimited.',
    ),
    '/v2/team/token-usage': usage(
      'Tokens',
      'Tokens are what the configured language model spent for the team (as its server reports them, else estimated at 4 characters a token); no team has a token budget.',
    ),
    '/v2/team/credit-usage/historical': historical('credits'),
    '/v2/team/token-usage/historical': historical('tokens'),
    '/v2/concurrency-check': {
      get: {
        operationId: 'getConcurrency',
        summary: "The team's conversions running now, and how many may run at once",
        responses: {
          '200': {
            description: 'Concurrency',
            content: json(object({ success: boolean, concurrency: integer, maxConcurrency: integer })),
          },
          '401': shared['401'],
          '429': shared['429'],
        },
      },
    },
    '/v2/team/queue-status': {
      get: {
        operationId: 'getQueueStatus',
        summary: "The team's queue: conversions running and work waiting",
        description:
          'Waiting counts requests in line for a concurrency slot and pages of running crawls and batch scrapes not yet fetched. mostRecentSuccess is the last time, within 24 hours, that the team was charged for an answer or spent model tokens.',
        responses: {
          '200': {
            description: 'Queue status',
            content: json(
              object({
                success: boolean,
                jobsInQueue: integer,
                activeJobsInQueue: integer,
                waitingJobsInQueue: integer,
                maxConcurrency: integer,
                mostRecentSuccess: { anyOf: [isoTime, { type: 'null' }] },
              }),
            ),
          },
          '401': shared['401'],
          '429': shared['429'],
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
          data: ref('Document'),
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
        'Firecrawl-compatible document parsing, scraping over HTTP(S), crawls, batch scrapes and maps as jobs, and interact sessions. Every /v2 route needs `Authorization: Bearer <key>`, except the session URLs handed out by create, which carry their own token. Every /v2/interact path is also served under /v2/browser.',
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ParseOptions: optionsJsonSchema(parseOptionsSchema, refusedOptions),
        ScrapeRequest: optionsJsonSchema(scrapeBodySchema, refusedScrapeOptions),
        Document: {
          type: 'object',
          description:
            "A converted page or document: the formats asked for and its `metadata`, with `pages` and `blocks` for PDFs when the pdf parser's options ask for them.",
          properties: pagedOutputs,
        },
        ...jobSchemas(),
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
      ...jobPaths(json, {
        '401': documentResponses['401'],
        '402': documentResponses['402'],
        '429': documentResponses['429'],
      }),
      ...teamPaths(json, { '401': documentResponses['401'], '429': documentResponses['429'] }),
    },
  };
  addCodeSamples(document.paths);
  return document;
}
