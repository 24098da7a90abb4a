import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { limits } from './limits.ts';

/**
 * Every environment variable Quire reads. The README's configuration table mirrors
 * this list; `describeConfig()` prints it so the two cannot drift apart unnoticed.
 */
const intVar = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
/** A string setting; `optional` ones may be empty, which means "not set". */
const stringVar = (fallback: string, meaning: string, optional = false) =>
  (optional ? z.string() : z.string().min(1)).default(fallback).describe(meaning);

export const configSchema = z.object({
  PORT: intVar(3002, 0, 65535).describe('TCP port the API listens on.'),
  HOST: stringVar('0.0.0.0', 'Interface the API binds to.'),
  QUIRE_DATA_DIR: stringVar('./data', 'Folder for the SQLite store and anything else Quire keeps on disk.'),
  QUIRE_DATABASE_URL: z
    .union([z.literal(''), z.url({ protocol: /^postgres(?:ql)?$/ })])
    .default('')
    .describe(
      'PostgreSQL URL (postgres://user:password@host:5432/quire) of the store shared by every process of a cluster; migrations are applied at start. Empty: the embedded SQLite store in QUIRE_DATA_DIR.',
    ),
  QUIRE_REDIS_URL: z
    .union([z.literal(''), z.url({ protocol: /^rediss?$/ })])
    .default('')
    .describe(
      "Redis URL (redis://host:6379) of the cluster mode conversion queue: API processes put conversions there and worker processes on any machine take them. Empty: the embedded mode, conversions in this process's own pool.",
    ),
  QUIRE_REDIS_PREFIX: stringVar(
    'quire',
    'Prefix of every Redis key Quire uses, so that several clusters (or test runs) can share one Redis.',
  ),
  QUIRE_CLUSTER_STALLED_CHECK_MS: intVar(limits.clusterStalledCheckMs, 100, 600_000).describe(
    "Cluster mode: how often each worker looks for jobs whose worker died (BullMQ's stalled-job check, a few Redis calls each time). A dead worker's job runs again once its 15 s claim has lapsed and two checks have seen it unclaimed.",
  ),
  QUIRE_REQUEST_HEADERS_TIMEOUT_MS: intVar(limits.requestHeadersMs, 1000, limits.requestReceiveMs).describe(
    "Time a connection has to send a request's headers before Quire answers 408 and closes it (checked every second): a real client sends them at once, a trickle holds a connection. At most the 120 s a whole request may take.",
  ),
  QUIRE_ROLE: z
    .enum(['all', 'api', 'worker'])
    .default('all')
    .describe(
      'What this process does in a cluster (QUIRE_REDIS_URL): api accepts requests and queues conversions, worker converts queued ones (HTTP for /health only), all does both. The embedded mode needs all.',
    ),
  QUIRE_API_KEYS: stringVar(
    '',
    'Comma-separated API keys accepted for the default team, in addition to stored keys.',
    true,
  ),
  QUIRE_DEFAULT_TEAM: stringVar(
    'default',
    'Team that configured keys and the first generated key belong to.',
  ),
  QUIRE_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level of the structured (JSON) logs on stdout.'),
  QUIRE_WORKERS: intVar(Math.max(1, os.availableParallelism()), 1, 256).describe(
    'Conversion worker processes (default: one per core).',
  ),
  QUIRE_SPARE_WORKERS: intVar(limits.spareWorkers, 0, 64).describe(
    'Idle conversion processes kept beyond QUIRE_WORKERS, so that a conversion does not wait for the replacement of one killed at its timeout or memory cap; each holds about 130 MB.',
  ),
  QUIRE_WORKER_HEAP_MB: intVar(1536, 64, 65536).describe(
    'Heap limit of each conversion worker; a conversion that needs more fails alone.',
  ),
  QUIRE_QUEUE_SIZE: intVar(256, 0, 1_000_000).describe(
    'Conversions that may wait for a worker; past it, parse answers 429.',
  ),
  QUIRE_TEAM_CONCURRENCY: intVar(0, 0, 10_000).describe(
    'Parses one team may run at once, unless `quire teams set` gives it its own; more wait (metadata.concurrencyLimited). 0: as many as there are workers, so no team can queue more work than the node runs.',
  ),
  QUIRE_METRICS_TOKEN: stringVar(
    '',
    'Bearer token that GET /metrics (Prometheus format) requires; empty: /metrics is off (404).',
    true,
  ),
  QUIRE_PLAYGROUND: z
    .stringbool()
    .default(true)
    .describe(
      'Serves the playground page at / (parse files and watch sessions from a browser, with a key the user pastes); 0 turns it off (404). The API reference at /docs is served either way.',
    ),
  QUIRE_FAIR_RESERVE_MS: intVar(limits.fairReserveMs, 0, 600_000).describe(
    'How long a team counts as active after its last parse: while it holds no worker, a team that holds one may not take the last free ones. 0 turns the reserve off.',
  ),
  QUIRE_RATE_LIMIT_PER_MINUTE: intVar(0, 0, 10_000_000).describe(
    'Requests per minute per team, unless `quire teams set` gives it its own; 0 turns the rate limit off.',
  ),
  QUIRE_UPLOADS_IN_FLIGHT_MB: intVar(limits.uploadBytesInFlight / 2 ** 20, 1, 1_048_576).describe(
    'Upload megabytes the API process holds at once (each until its answer is sent); past it, parse answers 429.',
  ),
  QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB: intVar(limits.uploadBytesInFlightPerTeam / 2 ** 20, 1, 1_048_576).describe(
    'The same for one team, so that one team cannot take the whole budget.',
  ),
  QUIRE_SHUTDOWN_GRACE_MS: intVar(30_000, 0, 600_000).describe(
    'How long shutdown waits for in-flight requests to finish.',
  ),
  QUIRE_PUBLIC_URL: z
    .union([z.literal(''), z.url({ protocol: /^https?$/ })])
    .default('')
    .describe(
      "Base URL clients reach Quire at (https://quire.example.com), used in sessions' cdpUrl and live view URLs; empty: taken from each request's Host header.",
    ),
  QUIRE_NODE_ID: stringVar(
    os.hostname(),
    'Name of this node, recorded with each browser session it holds (default: the host name).',
  ),
  QUIRE_NODE_URL: z
    .union([z.literal(''), z.url({ protocol: /^https?$/ })])
    .default('')
    .describe(
      "Base URL (http://10.0.0.7:3002) at which the cluster's other API processes reach this one, to forward the requests for the browser sessions it holds; empty: http://HOST:port, with the machine's first non-loopback IPv4 address when HOST is 0.0.0.0 or ::.",
    ),
  QUIRE_CHROMIUM_PATH: stringVar(
    '/usr/lib/chromium/chromium-headless-shell',
    "Chromium executable for interact sessions and rendered scrapes: the binary of Debian's chromium-headless-shell package, started directly rather than through its wrapper script. The headless shell starts in about 0.5 s and 0.7 s of CPU, where the full browser's headless mode takes 1.2 s and 2 s.",
  ),
  QUIRE_FILTER_LISTS_DIR: stringVar(
    path.resolve(import.meta.dirname, '../vendor/ublock-origin/assets'),
    "Folder of the ad and tracker filter lists rendered scrapes' blockAds uses (EasyList, EasyPrivacy and uBlock filters, taken out of Debian's webext-ublock-origin-chromium by scripts/fetch-filter-lists.sh, which npm start and npm test run). Empty, or without the lists: nothing is blocked.",
    true,
  ),
  QUIRE_FILTER_ENGINE_CACHE: stringVar(
    '',
    'File the parsed filter lists are kept in between starts (parsing them takes seconds). Empty: filter-engine.bin in QUIRE_DATA_DIR.',
    true,
  ),
  QUIRE_SESSIONS_MAX: intVar(20, 0, 10_000).describe(
    'Browser sessions this node holds at once; past it, create answers 429. 0 turns sessions off: create answers 503, without Retry-After.',
  ),
  QUIRE_SESSIONS_PER_TEAM: intVar(10, 1, 10_000).describe(
    'Browser sessions one team may hold at once; past it, create answers 429.',
  ),
  QUIRE_SESSIONS_MIN_FREE_MB: intVar(1024, 0, 1_048_576).describe(
    'Free memory (MemAvailable) below which no new browser session starts (429).',
  ),
  QUIRE_SESSIONS_MIN_FREE_DISK_MB: intVar(limits.sessionsMinFreeDiskMb, 0, 1_048_576).describe(
    'Free disk under QUIRE_DATA_DIR below which no new browser session starts (429).',
  ),
  QUIRE_SESSION_MEMORY_MB: intVar(limits.sessionMemoryMb, 64, 1_048_576).describe(
    "Private memory one session's browser processes may hold together; past it the session ends, with the reason.",
  ),
  QUIRE_SESSION_DISK_MB: intVar(limits.sessionDiskMb, 16, 1_048_576).describe(
    "Disk one session's folder (profile, downloads, uploads) may take, past which the session ends, and the most a saved profile may take.",
  ),
  QUIRE_SESSIONS_ALLOWED_HOSTS: stringVar(
    '',
    'Comma-separated host names or IPs that sessions may reach although they are private or loopback (by name as written in the URL; every port).',
    true,
  ),
  QUIRE_SCRAPE_ALLOWED_HOSTS: stringVar(
    '',
    'Comma-separated host names or IPs that scrape may fetch although they are private or loopback (matched by name as written in the URL, redirects included; every port).',
    true,
  ),
  QUIRE_SCRAPE_CAPTURES: z
    .enum(['url', 'data'])
    .default('url')
    .describe(
      "How a scrape's screenshots and PDFs are returned: url serves them from Quire for 24 hours (stored under QUIRE_DATA_DIR); data puts them in the answer as data URLs (always so under zero data retention).",
    ),
  QUIRE_SCRAPE_CACHE_MB: intVar(limits.scrapeCacheBytes / 2 ** 20, 0, 1_048_576).describe(
    'Megabytes (compressed) of scrape answers the store keeps for maxAge, per cluster; past it the oldest go. 0 turns the cache off: every scrape fetches.',
  ),
  QUIRE_PDF_THREADS: intVar(os.availableParallelism() >= limits.pdfHelperCores ? 2 : 1, 1, 2).describe(
    `Threads reading a PDF of ${limits.pdfParallelPages} pages or more: 2 takes less wall time where a core is free, for about a third more CPU. Default: 2 on machines of ${limits.pdfHelperCores} cores or more, else 1. Read by the conversion workers themselves.`,
  ),
  QUIRE_SESSIONS_EXECUTE: z
    .stringbool()
    .default(false)
    .describe("Turns on POST /v2/interact/{id}/execute, which runs the caller's Node code on this host."),
  // A view token is an HMAC of the session id under this secret, and both are in the live view
  // URL handed to watchers: a guessable secret would be found offline and open CDP.
  QUIRE_SESSION_SECRET: z
    .union([z.literal(''), z.string().min(32, { error: 'must be at least 32 characters' })])
    .default('')
    .describe(
      'Secret (at least 32 characters) the session tokens in cdpUrl and live view URLs are derived from; empty: a random one is generated into the data folder.',
    ),
  QUIRE_WEBHOOK_SECRET: stringVar(
    '',
    "Key of the HMAC-SHA256 signature sent with each crawl and batch scrape webhook (X-Firecrawl-Signature: sha256=<hex>, over the exact body); upstream's SELF_HOSTED_WEBHOOK_HMAC_SECRET is read when it is not set. Empty: webhooks are sent unsigned.",
    true,
  ),
  QUIRE_LLM_BASE_URL: z
    .union([z.literal(''), z.url({ protocol: /^https?$/ })])
    .default('')
    .describe(
      'Base URL of an OpenAI-compatible API for summary and json (https://api.openai.com/v1; http://localhost:11434/v1 for Ollama); empty: they use the offline methods.',
    ),
  QUIRE_LLM_API_KEY: stringVar(
    '',
    'Key for that API, sent as a bearer token (as api-key to Azure OpenAI); empty for servers that need none.',
    true,
  ),
  QUIRE_LLM_MODEL: stringVar(
    '',
    'Model name sent with each call (the deployment, for Azure OpenAI); required with QUIRE_LLM_BASE_URL.',
    true,
  ),
  QUIRE_LLM_ZERO_RETENTION: z
    .stringbool()
    .default(false)
    .describe(
      'Set to true only when the provider keeps nothing it is sent: then zeroDataRetention parses may use the model; otherwise they use the offline methods.',
    ),
  QUIRE_LLM_CONCURRENCY: intVar(limits.llmConcurrency, 1, 10_000).describe(
    "Model calls in flight at once from this process; more wait, within their request's timeout.",
  ),
  QUIRE_LLM_MAX_INPUT_TOKENS: intVar(limits.llmMaxInputTokens, 1024, 10_000_000).describe(
    "Document tokens (estimated as characters / 4) one model call reads; longer documents are read in chunks. Fit it to the model's context window.",
  ),
});

export type Config = z.infer<typeof configSchema> & { dbPath: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration:\n${z.prettifyError(parsed.error)}`);
  }
  if (parsed.data.QUIRE_ROLE !== 'all' && !parsed.data.QUIRE_REDIS_URL)
    throw new Error(
      `Invalid configuration:\nQUIRE_ROLE=${parsed.data.QUIRE_ROLE} needs cluster mode: set QUIRE_REDIS_URL (the queue that api and worker processes share), or use QUIRE_ROLE=all for the embedded mode.`,
    );
  const dataDir = path.resolve(parsed.data.QUIRE_DATA_DIR);
  return {
    ...parsed.data,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_TEAM_CONCURRENCY: parsed.data.QUIRE_TEAM_CONCURRENCY || parsed.data.QUIRE_WORKERS,
    // Upstream's self-hosted name, so that a Firecrawl deployment's settings carry over.
    QUIRE_WEBHOOK_SECRET: parsed.data.QUIRE_WEBHOOK_SECRET || (env.SELF_HOSTED_WEBHOOK_HMAC_SECRET ?? ''),
    dbPath: path.join(dataDir, 'quire.db'),
  };
}

/** One row per variable: name, default and meaning, for the README and `quire config`. */
export function describeConfig(): { name: string; fallback: string; meaning: string }[] {
  return Object.entries(configSchema.shape).map(([name, schema]) => {
    const defaulted = schema.safeParse(undefined);
    return {
      name,
      fallback: defaulted.success ? String(defaulted.data) : '',
      meaning: schema.description ?? '',
    };
  });
}
