import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { Authenticator } from './http/auth.ts';
import { buildServer } from './http/server.ts';
import { Metrics } from './metrics/metrics.ts';
import { ConversionPool } from './pipeline/worker-pool.ts';
import { Credits } from './quota/credits.ts';
import { SlidingWindowRateLimiter } from './quota/rate-limit.ts';
import { InProcessTeamConcurrency } from './quota/team-concurrency.ts';
import { TeamSettingsCache } from './quota/team-settings.ts';
import { UploadBudget } from './quota/upload-budget.ts';
import { SessionService } from './sessions/session-service.ts';
import { createApiKey } from './store/api-keys.ts';
import { PostgresStore } from './store/postgres-store.ts';
import { SqliteStore } from './store/sqlite-store.ts';
import type { Store } from './store/store.ts';

export interface App {
  server: FastifyInstance;
  /** A key made on first start of an empty store, to be shown to the operator once. */
  firstKey: string | undefined;
  close(): Promise<void>;
}

/** Wire the embedded mode: SQLite store, in-process pool, limits and queue. */
export async function createApp(config: Config): Promise<App> {
  const store: Store = config.QUIRE_DATABASE_URL
    ? await PostgresStore.open(config.QUIRE_DATABASE_URL)
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
  const pool = new ConversionPool({
    workers: config.QUIRE_WORKERS,
    heapMb: config.QUIRE_WORKER_HEAP_MB,
    queueSize: config.QUIRE_QUEUE_SIZE,
    reserveMs: config.QUIRE_FAIR_RESERVE_MS,
    observer: metrics,
  });
  const sessions = new SessionService(store, config);
  const teams = new TeamSettingsCache(store, {
    concurrency: config.QUIRE_TEAM_CONCURRENCY,
    ratePerMinute: config.QUIRE_RATE_LIMIT_PER_MINUTE,
  });
  const server = buildServer({
    config,
    store,
    pool,
    auth: new Authenticator(store, configuredKeys, config.QUIRE_DEFAULT_TEAM),
    teams,
    credits: new Credits(store, teams),
    concurrency: new InProcessTeamConcurrency(async (team) => (await teams.get(team)).concurrency),
    uploads: new UploadBudget(
      config.QUIRE_UPLOADS_IN_FLIGHT_MB * 2 ** 20,
      config.QUIRE_TEAM_UPLOADS_IN_FLIGHT_MB * 2 ** 20,
    ),
    // Always there: a team's own setting may limit it where the default does not.
    rateLimiter: new SlidingWindowRateLimiter(config.QUIRE_RATE_LIMIT_PER_MINUTE),
    sessions,
    metrics,
  });
  await sessions.start();
  return {
    server,
    firstKey,
    async close() {
      // Connections kept alive by clients would hold close() open once their request is done.
      const sweep = setInterval(() => server.server.closeIdleConnections(), 100);
      // Sessions first: their sockets would otherwise hold the server's close open.
      await sessions.close();
      await server.close();
      clearInterval(sweep);
      await pool.close();
      await store.close();
    },
  };
}
