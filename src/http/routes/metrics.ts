import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../metrics/metrics.ts';

export interface MetricsRouteOptions {
  metrics: Metrics;
  token: string;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * GET /metrics in Prometheus's text format, for the operator's scraper: behind its own token, not
 * an API key, since it shows every team's traffic together. Compared as digests in constant time.
 */
export async function metricsRoutes(app: FastifyInstance, options: MetricsRouteOptions): Promise<void> {
  const expected = digest(options.token);
  app.get('/metrics', async (request, reply) => {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(given), expected)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ success: false, error: 'GET /metrics needs the metrics token (QUIRE_METRICS_TOKEN).' });
    }
    return reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics());
  });
}
