import type { FastifyInstance } from 'fastify';

/** Liveness and readiness in one: the server only listens once the store and pool are up. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/health', async () => ({ status: 'ok' }));
}
