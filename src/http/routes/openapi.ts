import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../openapi.ts';

export async function openApiRoutes(app: FastifyInstance): Promise<void> {
  const document = buildOpenApiDocument();
  app.get('/v2/openapi.json', async () => document);
}
