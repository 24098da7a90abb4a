import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { App } from './app.ts';
import type { Config } from './config.ts';
import { quietConnectionCloser } from './http/quiet-connections.ts';
import { healthRoutes } from './http/routes/health.ts';
import type { ClusterWorker } from './pipeline/redis-queue.ts';
import { ConversionPool, type PoolObserver } from './pipeline/worker-pool.ts';

/** The local pool of conversion processes, of the embedded mode or of a cluster's worker. */
export function localPool(config: Config, observer?: PoolObserver): ConversionPool {
  return new ConversionPool({
    workers: config.QUIRE_WORKERS,
    spares: config.QUIRE_SPARE_WORKERS,
    heapMb: config.QUIRE_WORKER_HEAP_MB,
    queueSize: config.QUIRE_QUEUE_SIZE,
    reserveMs: config.QUIRE_FAIR_RESERVE_MS,
    observer,
  });
}

/** Takes the cluster's queued jobs into `pool`, as many at once as it has processes. */
export async function startClusterWorker(
  config: Config,
  pool: ConversionPool,
  log: FastifyBaseLogger,
): Promise<ClusterWorker> {
  const { ClusterWorker } = await import('./pipeline/redis-queue.ts');
  return ClusterWorker.start({
    url: config.QUIRE_REDIS_URL,
    prefix: config.QUIRE_REDIS_PREFIX,
    pool,
    workers: config.QUIRE_WORKERS,
    log,
    stalledCheckMs: config.QUIRE_CLUSTER_STALLED_CHECK_MS,
  });
}

/**
 * A cluster's worker process (QUIRE_ROLE=worker): converts queued jobs in its local pool, with
 * HTTP for /health only. A module of its own so that a worker never loads the API's (store,
 * sessions, routes), which halves its start.
 */
export async function createWorkerApp(config: Config): Promise<App> {
  const server = Fastify({ logger: { level: config.QUIRE_LOG_LEVEL }, return503OnClosing: true });
  server.register(healthRoutes);
  const closeQuietConnections = quietConnectionCloser(server.server);
  const pool = localPool(config);
  const worker = await startClusterWorker(config, pool, server.log);
  return {
    server,
    firstKey: undefined,
    async close() {
      const sweep = setInterval(closeQuietConnections, 100);
      await server.close();
      clearInterval(sweep);
      // Lets the running conversions finish and answer: the drain of a worker.
      await worker.close();
      await pool.close();
    },
  };
}
