import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { buildOpenApiDocument } from '../openapi.ts';

/** Where `npm run build` (scripts/build-web.ts) writes the pages and their assets. */
const distDir = path.resolve(import.meta.dirname, '../../../web/dist');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Nothing but Quire itself: the pages must work offline, and a document's own images or links
 * must not make the browser call other hosts. Redoc injects its styles and runs its search in a
 * worker made from a blob, hence those two allowances on /docs only.
 */
function csp(extra: Record<string, string>): string {
  const directives: Record<string, string> = {
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data: blob:",
    'connect-src': "'self'",
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
    ...extra,
  };
  return Object.entries(directives)
    .map(([name, value]) => `${name} ${value}`)
    .join('; ');
}

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** One file of web/dist, read once; undefined when the page was never built. */
function readAsset(relative: string): Asset | undefined {
  let body: Buffer;
  try {
    body = fs.readFileSync(path.join(distDir, relative));
  } catch {
    return undefined;
  }
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, type: types[path.extname(relative)] ?? 'application/octet-stream', etag };
}

/**
 * Static routes outside /v2, so they need no key: the page holds no data, and its calls to the
 * API carry the key the user gives it.
 */
function serveFiles(app: FastifyInstance, files: Record<string, string>, policy: string): void {
  for (const [route, relative] of Object.entries(files)) {
    const asset = readAsset(relative);
    app.get(route, async (request, reply) => {
      if (!asset) {
        return reply
          .code(503)
          .type('text/plain; charset=utf-8')
          .send(`${route} is not built: run \`npm run build\` and restart Quire.\n`);
      }
      // Revalidated every time (no hashed names), answered 304 when unchanged.
      reply
        .header('cache-control', 'no-cache')
        .header('etag', asset.etag)
        .header('content-security-policy', policy)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer');
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    });
  }
}

/** The playground at `/` (unless QUIRE_PLAYGROUND is off). */
export async function playgroundRoutes(app: FastifyInstance, deps: { config: Config }): Promise<void> {
  // Live views are Quire's own pages, at QUIRE_PUBLIC_URL when that is set, else this origin.
  const frames = deps.config.QUIRE_PUBLIC_URL
    ? `'self' ${new URL(deps.config.QUIRE_PUBLIC_URL).origin}`
    : "'self'";
  serveFiles(
    app,
    {
      '/': 'playground/index.html',
      '/playground/app.js': 'playground/app.js',
      '/playground/style.css': 'playground/style.css',
    },
    csp({ 'frame-src': frames }),
  );
}

/** The API reference at `/docs`, rendered by Redoc from the same OpenAPI document as /v2/openapi.json. */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  serveFiles(
    app,
    {
      '/docs': 'docs/index.html',
      '/docs/docs.js': 'docs/docs.js',
      '/docs/redoc.standalone.js': 'docs/redoc.standalone.js',
    },
    csp({ 'style-src': "'self' 'unsafe-inline'", 'worker-src': 'blob:' }),
  );
  // The reference is public documentation, as upstream's is; the copy under /v2 keeps its key.
  const document = buildOpenApiDocument();
  app.get('/docs/openapi.json', async () => document);
}
