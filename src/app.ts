import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { Authenticator } from './http/auth.ts';
import { quietConnectionCloser } from './http/quiet-connections.ts';
import { buildServer } from './http/server.ts';
import { Metrics } from './metrics/metrics.ts';
import type { ConversionRunner } from './pipeline/runner.ts';
import { Credits } from './quota/credits.ts';
import { SlidingWindowRateLimiter } from './quota/rate-limit.ts';
import { RedisTeamConcurrency } from './quota/redis-team-concurrency.ts';
import { InProcessTeamConcurrency, type TeamConcurrency } from './quota/team-concurrency.ts';
import { TeamSettingsCache } from './quota/team-settings.ts';
import { UploadBudget } from './quota/upload-budget.ts';
import type { ResolveAll } from './scrape/vetted-address.ts';
import type { SessionTimers } from './sessions/session-clock.ts';
import { SessionService } from './sessions/session-service.ts';
import { createApiKey } from './store/api-keys.ts';
import { SqliteStore } from './store/sqlite-store.ts';
import type { Store } from './store/store.ts';
import { localPool, startClusterWorker } from './worker-app.ts';

export interface App {
  server: FastifyInstance;
  /** A key made on first start of an empty store, to be shown to the operator once. */
  firstKey: string | undefined;
  close(): Promise<void>;
}

/**
 * Wire the server: the embedded mode (SQLite store or PostgreSQL, in-process pool, limits and
 * queue), or a process of a cluster (QUIRE_REDIS_URL) in role `api` (queues conversions in
 * Redis and never converts) or `all` (also converts what is queued). Role `worker` is
 * createWorkerApp's.
 */
export async function createApp(
  config: Config,
  {
    logStream,
    sessionTimers,
    resolveAll,
    jobSleep,
    monitorClock,
  }: {
    logStream?: NodeJS.WritableStream;
    /** The clock sessions run on; a test passes one it moves. */
    sessionTimers?: SessionTimers;
    /** How host names are resolved: the system's, unless a test maps names of its own to loopback. */
    resolveAll?: ResolveAll;
    /** How crawls wait (Crawl-delay, polls); a test passes one that records and returns at once. */
    jobSleep?: (ms: number, signal: AbortSignal) => Promise<void>;
    /** The time monitors' schedules are read against (ms since the epoch); a test passes one it moves. */
    monitorClock?: () => number;
  } = {},
): Promise<App> {
  // What only a cluster uses (PostgreSQL, Redis, BullMQ: hundreds of modules) is loaded only when
  // configured, so that the embedded mode starts without it.
  const store: Store = config.QUIRE_DATABASE_URL
    ? await (await import('./store/postgres-store.ts')).PostgresStore.open(config.QUIRE_DATABASE_URL)
    : new SqliteStore(config.dbPath);
  const configuredKeys = config.QUIRE_API_KEYS.split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  let firstKey: string | undefined;
  if (configuredKeys.length === 0 && (await store.countActiveApiKeys()) === 0) {
    firstKey = (await createApiKey(store, config.QUIRE_DEFAULT_TEAM, 'first start')).key;
  }
  // Read when scraped, by which time the pool and sessions exist.
  const metrics = new Metrics({ pool: () => pool.stats(), activeSessions: () => sessions.activeCount() });
  // In a cluster the queue's wait is the Redis queue's (observed there), not the local pool's.
  const localObserver = config.QUIRE_REDIS_URL
    ? { queueWait() {}, workerLost: () => metrics.workerLost() }
    : metrics;
  const local = config.QUIRE_ROLE === 'all' ? localPool(config, localObserver) : undefined;
  const queue = config.QUIRE_REDIS_URL
    ? await (await import('./pipeline/redis-queue.ts')).RedisJobQueue.open({
        url: config.QUIRE_REDIS_URL,
        prefix: config.QUIRE_REDIS_PREFIX,
        queueSize: config.QUIRE_QUEUE_SIZE,
        localWorkers: local ? config.QUIRE_WORKERS : 0,
        observer: metrics,
      })
    : undefined;
  // Role all without Redis is the embedded mode; loadConfig refuses the other roles without it.
  const pool: ConversionRunner = queue ?? local!;
  const teams = new TeamSettingsCache(store, {
    concurrency: config.QUIRE_TEAM_CONCURRENCY,
    ratePerMinute: config.QUIRE_RATE_LIMIT_PER_MINUTE,
  });
  const teamLimits = (team: string) => teams.get(team);
  // Limits a cluster's API processes share: team concurrency and rate, counted in Redis.
  const redis = config.QUIRE_REDIS_URL
    ? new (await import('ioredis')).Redis(config.QUIRE_REDIS_URL)
    : undefined;
  // In a cluster, nodes find each other's sessions through Redis (sessions/cluster-nodes.ts).
  const sessions = new SessionService(
    store,
    config,
    redis && { redis, prefix: config.QUIRE_REDIS_PREFIX },
    sessionTimers,
  );
  const concurrency: TeamConcurrency = redis
    ? await RedisTeamConcurrency.open(redis, config.QUIRE_REDIS_PREFIX, teamLimits)
    : new InProcessTeamConcurrency(teamLimits);
  const server = buildServer({
    config,
    store,
    pool,
    auth: new Authenticator(store, configuredKeys, config.QUIRE_DEFAULT_TEAM),
    teams,
    credits: new Credits(store, teams),
    concurrency,
    uploads: new UploadBudget(
      config.QUIRE_UPLOADS_IN_FLIGHT_MB * 2 ** 20,
      config.QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB * 2 ** 20,
    ),
    // Always there: a team's own setting may limit it where the default does not.
    rateLimiter: new SlidingWindowRateLimiter(
      config.QUIRE_RATE_LIMIT_PER_MINUTE,
      redis && { redis, prefix: config.QUIRE_REDIS_PREFIX },
    ),
    sessions,
    metrics,
    logStream,
    resolveAll,
    jobSleep,
    monitorClock,
  });
  queue?.useLogger(server.log);
  const closeQuietConnections = quietConnectionCloser(server.server);
  const worker = queue && local ? await startClusterWorker(config, local, server.log) : undefined;
  await sessions.start();
  // Where the other nodes reach this one is known once it listens (PORT may be 0).
  server.addHook('onListen', async () => {
    const address = server.server.address();
    if (address && typeof address === 'object') await sessions.listening(address.port);
  });
  return {
    server,
    firstKey,
    async close() {
      // Connections kept alive by clients would hold close() open once their request is done.
      const sweep = setInterval(closeQuietConnections, 100);
      // Sessions first: their sockets would otherwise hold the server's close open.
      await sessions.close();
      await server.close();
      clearInterval(sweep);
      // After the server: its in-flight requests wait for their conversions, which this worker may run.
      await worker?.close();
      await queue?.close();
      if (concurrency instanceof RedisTeamConcurrency) concurrency.close();
      redis?.disconnect();
      await local?.close();
      await store.close();
    },
  };
}
