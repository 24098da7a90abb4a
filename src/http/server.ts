import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { ChangeTracker } from '../changes/tracker.ts';
import type { Config } from '../config.ts';
import { configuredModel } from '../enrich/llm/provider.ts';
import { ApiError, tooDeep, unknownErrorBody } from '../errors.ts';
import { limits } from '../limits.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { ConversionRunner } from '../pipeline/runner.ts';
import type { Credits } from '../quota/credits.ts';
import type { RateLimiter } from '../quota/rate-limit.ts';
import type { TeamConcurrency } from '../quota/team-concurrency.ts';
import type { EffectiveSettings, TeamSettingsCache } from '../quota/team-settings.ts';
import type { UploadBudget } from '../quota/upload-budget.ts';
import { NetPolicy } from '../sessions/net-policy.ts';
import { SessionService } from '../sessions/session-service.ts';
import type { Store } from '../store/store.ts';
import { storeUnavailable } from '../store/store-unavailable.ts';
import type { Authenticator } from './auth.ts';
import { jsonDepth } from './json-depth.ts';
import { ClientGoneError } from './multipart.ts';
import './request-context.ts';
import { JobRunner } from '../jobs/job-runner.ts';
import { JobWatcher } from '../jobs/job-watcher.ts';
import { MonitorScheduler } from '../jobs/monitors/scheduler.ts';
import { WebhookSender } from '../jobs/webhooks.ts';
import { AdBlocker } from '../scrape/ad-filter.ts';
import { ScrapeRenderer } from '../scrape/render/renderer.ts';
import { ScrapeCache } from '../scrape/scrape-cache.ts';
import type { ResolveAll } from '../scrape/vetted-address.ts';
import { crawlPreviewRoutes } from './routes/crawl-preview.ts';
import { extractRoutes } from './routes/extract.ts';
import { healthRoutes } from './routes/health.ts';
import { interactRoutes, sessionTokenRoutes } from './routes/interact.ts';
import { jobRoutes } from './routes/jobs.ts';
import { mapRoutes } from './routes/map.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { monitorRoutes } from './routes/monitors.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { parseRoutes } from './routes/parse.ts';
import { docsRoutes, playgroundRoutes } from './routes/playground.ts';
import { scrapeRoutes } from './routes/scrape.ts';
import { teamRoutes } from './routes/team.ts';

export interface ServerDeps {
  config: Config;
  store: Store;
  pool: ConversionRunner;
  auth: Authenticator;
  teams: TeamSettingsCache;
  credits: Credits;
  concurrency: TeamConcurrency;
  uploads: UploadBudget;
  rateLimiter: RateLimiter;
  sessions: SessionService;
  metrics: Metrics;
  /** Where the JSON log lines go: standard output unless given (tests read them in-process). */
  logStream?: NodeJS.WritableStream;
  /** How host names are resolved: the system's, unless a test maps names of its own to loopback. */
  resolveAll?: ResolveAll;
  /** How crawls wait between pages and polls (the timers' own, unless a test records them). */
  jobSleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The time monitors' schedules are read against: the system's, unless a test moves its own. */
  monitorClock?: () => number;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The body digest a forwarded request was signed with, checked once its body is parsed. */
const forwardedBodies = new WeakMap<object, string>();

/** The per-minute limits a team's 429 names. */
function rateLimitsText({ ratePerMinute: team, keyRatePerMinute: key }: EffectiveSettings): string {
  if (team > 0 && key > 0) return `at most ${team} requests per minute, and ${key} per key`;
  return team > 0 ? `at most ${team} requests per minute` : `at most ${key} requests per minute per key`;
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({
    logger: {
      level: deps.config.QUIRE_LOG_LEVEL,
      ...(deps.logStream ? { stream: deps.logStream } : {}),
      redact: ['req.headers.authorization'],
      serializers: {
        // Fastify's own fields, but session URLs carry their token in the query: a log that
        // shows it opens the session, which storing only its hash is meant to prevent.
        req: (req) => ({
          method: req.method,
          url: req.url.replace(/([?&]token=)[^&]*/g, '$1[redacted]'),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
    },
    bodyLimit: limits.jsonBodyBytes,
    // Path parameters as sent, percent-encoded: a profile name of profileNameChars UTF-16 units
    // takes up to 9 characters each (3 UTF-8 bytes as %XX), past Fastify's default of 100.
    routerOptions: { maxParamLength: limits.profileNameChars * 9 },
    // Accept a caller's request id (so logs join up across services), else make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestTimeout: limits.requestReceiveMs,
    // Node checks those deadlines every 30 s by default, which let a trickle live 75 s.
    http: { headersTimeout: deps.config.QUIRE_REQUEST_HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    return503OnClosing: true,
  });

  // One JSON rule for every route (a plugin that reads its body itself, like parse, replaces it).
  // An empty body is no body: the Python SDK sends a JSON content type on GET and DELETE too.
  // Malformed JSON gets upstream's code and words. Fastify's own parser still does the parsing,
  // for its prototype-poisoning checks.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) => {
    if (body === '') return done(null, undefined);
    if (jsonDepth(body, limits.jsonDepth) > limits.jsonDepth) return done(tooDeep('The JSON body'));
    parseJson(request, body, (error, parsed) =>
      error
        ? done(new ApiError(400, 'BAD_REQUEST_INVALID_JSON', 'Bad request, malformed JSON'))
        : done(null, parsed),
    );
  });

  app.decorateRequest('principal', undefined);
  app.decorateRequest('audit', undefined);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // By route template, never the raw URL, so that ids and tokens do not become label values.
  app.addHook('onResponse', async (request, reply) => {
    deps.metrics.request(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ClientGoneError) {
      request.log.info('client went away before the answer');
      return reply.code(499).send();
    }
    const known = error instanceof ApiError ? error : storeUnavailable(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(known.status).headers(known.headers).send(known.body());
    }
    // Fastify's own client errors: a body over bodyLimit (413 "Request body is too large", upstream's
    // words), an unknown content type (415), a body shorter than its Content-Length, ...
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ success: false, code: 'BAD_REQUEST', error: error.message });
    }
    const { errorId, body } = unknownErrorBody();
    request.log.error({ err: error, errorId }, 'unexpected error');
    return reply.code(500).send(body);
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({
      success: false,
      code: 'NOT_FOUND',
      error: `Route ${request.method} ${request.url.split('?')[0]} does not exist.`,
    }),
  );

  deps.sessions.useLogger(app.log);
  // Crawl and batch scrape watchers (jobs-and-formats §4); every other upgrade is a session's.
  const watcher = new JobWatcher({
    jobs: deps.store.jobs,
    auth: deps.auth,
    rateLimiter: deps.rateLimiter,
    teams: deps.teams,
    log: app.log,
  });
  // Before the HTTP server's close, which open sockets would hold (onClose runs after it).
  app.addHook('preClose', () => watcher.close());
  app.server.on('upgrade', (req, socket, head) =>
    watcher.handles(req)
      ? watcher.upgrade(req, socket, head)
      : deps.sessions.handleUpgrade(req, socket, head),
  );

  const scrapePolicy = new NetPolicy(
    deps.config.QUIRE_SCRAPE_ALLOWED_HOSTS.split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    'a scrape',
  );
  // Started on a scrape's first need of a browser; closed with the server.
  const renderer = new ScrapeRenderer(deps.config, scrapePolicy);
  app.addHook('onClose', () => renderer.close());
  // The ad filter lists, parsed (or read back from their cache file) on the first scrape that blocks.
  const adBlocker = new AdBlocker({
    listsDir: deps.config.QUIRE_FILTER_LISTS_DIR,
    cacheFile:
      deps.config.QUIRE_FILTER_ENGINE_CACHE || path.join(deps.config.QUIRE_DATA_DIR, 'filter-engine.bin'),
    warn: (message, err) => app.log.warn(err ? { err } : {}, message),
  });
  // Scrape answers for maxAge, in the store; its sweep stops before the store closes.
  const scrapeCache = new ScrapeCache(deps.store, deps.config.QUIRE_SCRAPE_CACHE_MB * 2 ** 20, (err) =>
    app.log.warn({ err }, 'scrape cache sweep failed'),
  );
  app.addHook('onClose', () => scrapeCache.close());
  const model = configuredModel(deps.config);
  const changes = new ChangeTracker(deps.store);
  // Job events, kept in the store until their receiver has them (any process of a cluster sends them).
  const webhooks = new WebhookSender(deps.store.jobs, {
    secret: deps.config.QUIRE_WEBHOOK_SECRET || undefined,
    policy: scrapePolicy,
    resolveAll: deps.resolveAll,
    log: app.log,
  });
  // Crawls and batch scrapes: driven here, or by any process of the cluster whose lease ends first.
  const jobRunner = new JobRunner({
    metrics: deps.metrics,
    pool: deps.pool,
    concurrency: deps.concurrency,
    model,
    policy: scrapePolicy,
    resolveAll: deps.resolveAll,
    renderer,
    config: deps.config,
    cache: scrapeCache,
    adBlocker,
    changes,
    jobs: deps.store.jobs,
    credits: deps.credits,
    uploads: deps.uploads,
    teams: deps.teams,
    webhooks,
    log: app.log,
    owner: `${os.hostname()}:${process.pid}:${randomUUID()}`,
    soleProcess: !deps.config.QUIRE_DATABASE_URL,
    sleep: deps.jobSleep,
  });
  // Monitors: every API process looks for checks due; the store gives each to one of them.
  const monitorScheduler = new MonitorScheduler({
    jobs: deps.store.jobs,
    monitors: deps.store.monitors,
    runner: jobRunner,
    credits: deps.credits,
    webhooks,
    now: deps.monitorClock ?? Date.now,
    log: app.log,
  });
  app.addHook('onReady', async () => {
    jobRunner.start();
    webhooks.start();
    monitorScheduler.start();
  });
  app.addHook('onClose', async () => {
    await monitorScheduler.close();
    await jobRunner.close();
    await webhooks.close();
  });

  app.register(healthRoutes);
  // Screenshots and PDFs of scrapes, at unguessable URLs that expire: no key, as upstream's storage.
  app.register(renderer.captures.routes);
  // Pages outside /v2, so they need no key: their calls to the API carry the one the user pastes.
  if (deps.config.QUIRE_PLAYGROUND) app.register(playgroundRoutes, { config: deps.config });
  app.register(docsRoutes);
  if (deps.config.QUIRE_METRICS_TOKEN)
    app.register(metricsRoutes, { metrics: deps.metrics, token: deps.config.QUIRE_METRICS_TOKEN });
  // Opened by a session's own token (in its URLs), not an API key.
  app.register(sessionTokenRoutes, { sessions: deps.sessions, config: deps.config });
  // Everything under /v2 needs a key (behaviour doc, decision 1), then passes the rate limit.
  app.register(async (v2) => {
    v2.addHook('onRequest', async (request) => {
      // A session request another node of the cluster checked (key and rate) and forwarded,
      // signed, to this one, which holds the session.
      const forwarded = await deps.sessions.forwardedPrincipal(request);
      if (forwarded) {
        request.principal = { team: forwarded.team, keyId: forwarded.keyId };
        forwardedBodies.set(request, forwarded.bodyDigest);
        return;
      }
      request.principal = await deps.auth.authenticate(request);
      const { team, keyId } = request.principal;
      const settings = await deps.teams.get(team);
      const retryAfter = await deps.rateLimiter.consume(team, {
        perMinute: settings.ratePerMinute,
        key: { id: keyId, perMinute: settings.keyRatePerMinute },
      });
      if (retryAfter > 0) {
        throw new ApiError(
          429,
          undefined,
          `Rate limit exceeded: ${rateLimitsText(settings)}. Please retry after ${retryAfter}s.`,
          { headers: { 'retry-after': String(retryAfter) } },
        );
      }
    });
    v2.addHook('preHandler', async (request) => {
      const signed = forwardedBodies.get(request);
      if (signed !== undefined && !SessionService.forwardedBodyMatches(request.body, signed)) {
        throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: invalid forwarded request');
      }
    });
    // Recorded before the answer leaves, so a client that has its answer can find the event.
    v2.addHook('onSend', async (request, reply, payload) => {
      if (!request.audit || !request.principal) return payload;
      // Settings that cannot be read leave auditing on: an event too many rather than one lost.
      const audited = await deps.teams.get(request.principal.team).then(
        (settings) => settings.audit,
        () => true,
      );
      if (!audited) return payload;
      const event = {
        at: new Date().toISOString(),
        team: request.principal.team,
        keyId: request.principal.keyId,
        requestId: request.id,
        action: request.audit.action ?? 'parse',
        status: reply.statusCode,
        username: request.audit.username ?? null,
        filename: request.audit.filename ?? null,
        format: request.audit.format ?? null,
        bytes: request.audit.bytes ?? null,
        durationMs: Math.round(reply.elapsedTime),
        zeroDataRetention: request.audit.zeroDataRetention ?? false,
      };
      // The event goes to the log instead (it holds no content), so a log shipper keeps it.
      await deps.store
        .recordAudit(event)
        .catch((err: unknown) => request.log.error({ err, event }, 'audit event not recorded'));
      return payload;
    });
    v2.register(openApiRoutes);
    v2.register(parseRoutes, {
      metrics: deps.metrics,
      pool: deps.pool,
      concurrency: deps.concurrency,
      uploads: deps.uploads,
      teams: deps.teams,
      credits: deps.credits,
      model,
    });
    v2.register(scrapeRoutes, {
      metrics: deps.metrics,
      pool: deps.pool,
      concurrency: deps.concurrency,
      uploads: deps.uploads,
      teams: deps.teams,
      credits: deps.credits,
      model,
      policy: scrapePolicy,
      resolveAll: deps.resolveAll,
      renderer,
      config: deps.config,
      cache: scrapeCache,
      adBlocker,
      changes,
    });
    v2.register(crawlPreviewRoutes, {
      model,
      credits: deps.credits,
      uploads: deps.uploads,
      policy: scrapePolicy,
      resolveAll: deps.resolveAll,
    });
    const jobDeps = {
      store: deps.store,
      runner: jobRunner,
      credits: deps.credits,
      teams: deps.teams,
      uploads: deps.uploads,
      policy: scrapePolicy,
      resolveAll: deps.resolveAll,
      model,
      config: deps.config,
    };
    v2.register(jobRoutes, jobDeps);
    v2.register(extractRoutes, jobDeps);
    v2.register(monitorRoutes, {
      ...jobDeps,
      scheduler: monitorScheduler,
      now: deps.monitorClock ?? Date.now,
    });
    v2.register(mapRoutes, {
      credits: deps.credits,
      uploads: deps.uploads,
      policy: scrapePolicy,
      resolveAll: deps.resolveAll,
    });
    v2.register(teamRoutes, {
      store: deps.store,
      credits: deps.credits,
      teams: deps.teams,
      concurrency: deps.concurrency,
    });
    // Upstream serves every session route under both names (behaviour doc §7).
    for (const prefix of ['/v2/interact', '/v2/browser']) {
      v2.register(interactRoutes, { prefix, sessions: deps.sessions, config: deps.config });
    }
  });
  return app;
}
