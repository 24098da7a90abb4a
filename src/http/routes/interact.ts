import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { validationError } from '../../options/validate.ts';
import { livePageCsp, livePageHtml } from '../../sessions/live-page.ts';
import type { PublicBase, SessionService } from '../../sessions/session-service.ts';
import { createSessionBody, executeBody, listSessionsQuery } from '../interact-schemas.ts';

export interface InteractRouteDeps {
  sessions: SessionService;
  config: Config;
}

function parse<T extends z.ZodType>(schema: T, root: string, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw validationError(root, parsed.error, input);
  return parsed.data;
}

/** Where the caller reached us: the configured public URL, else the request's own host. */
export function publicBase(config: Config, request: FastifyRequest): PublicBase {
  const http = config.QUIRE_PUBLIC_URL
    ? config.QUIRE_PUBLIC_URL.replace(/\/+$/, '')
    : `${request.protocol}://${request.host}`;
  return { http, ws: http.replace(/^http/, 'ws') };
}

/** The address this request came in on, for a child process on this host to call back. */
function localBase(request: FastifyRequest): string {
  const { localAddress, localPort } = request.raw.socket;
  const host = !localAddress ? '127.0.0.1' : localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return `ws://${host}:${localPort}`;
}

/**
 * Interact sessions with an API key, registered under /v2/interact and its alias /v2/browser.
 * The routes validate and shape; SessionService does the work.
 */
export async function interactRoutes(app: FastifyInstance, deps: InteractRouteDeps): Promise<void> {
  const { sessions, config } = deps;

  app.post('/', async (request) => {
    const body = parse(createSessionBody, 'body', request.body);
    if (body.recordSession === true) {
      throw new ApiError(
        501,
        'NOT_IMPLEMENTED',
        'recordSession: session recording is not available in Quire; leave it out or send false.',
      );
    }
    const created = await sessions.create(
      request.principal!.team,
      {
        ttl: body.ttl,
        activityTtl: body.activityTtl,
        streamWebView: body.streamWebView,
        profile: body.profile,
      },
      publicBase(config, request),
    );
    return { success: true, ...created };
  });

  app.get('/', async (request) => {
    const query = parse(listSessionsQuery, 'query', request.query);
    const base = publicBase(config, request);
    const records = await sessions.list(request.principal!.team, query.status);
    return { success: true, sessions: records.map((r) => sessions.view(r, base)) };
  });

  app.get<{ Params: { id: string } }>('/:id', async (request) => {
    const record = await sessions.get(request.principal!.team, request.params.id);
    return {
      success: true,
      ...sessions.view(record, publicBase(config, request)),
      expiresAt: record.expiresAt,
      closedAt: record.closedAt,
      closeReason: record.closeReason,
    };
  });

  app.delete<{ Params: { id: string } }>('/:id', async (request) => {
    const { sessionDurationMs } = await sessions.destroy(request.principal!.team, request.params.id);
    return { success: true, status: 'destroyed', sessionDurationMs };
  });

  app.post<{ Params: { id: string } }>('/:id/execute', async (request) => {
    const body = parse(executeBody, 'body', request.body);
    if (body.language !== 'node') {
      throw new ApiError(
        400,
        'BAD_REQUEST',
        `body.language "${body.language}" is not supported by Quire; execute runs Node code with Playwright (language: "node").`,
      );
    }
    const result = await sessions.execute(
      request.principal!.team,
      request.params.id,
      { code: body.code, timeout: body.timeout },
      localBase(request),
    );
    return { success: true, ...result };
  });

  app.delete<{ Params: { name: string } }>('/profiles/:name', async (request) => {
    await sessions.deleteProfile(request.principal!.team, request.params.name);
    return { success: true };
  });
}

/**
 * Routes opened by a session token instead of an API key: the CDP discovery endpoint clients
 * read before connecting, and the live view page. Their WebSockets are upgrades, handled by
 * SessionService.handleUpgrade.
 */
export async function sessionTokenRoutes(app: FastifyInstance, deps: InteractRouteDeps): Promise<void> {
  const { sessions, config } = deps;
  const token = (request: FastifyRequest) => {
    const value = (request.query as Record<string, unknown>).token;
    return typeof value === 'string' ? value : undefined;
  };

  for (const prefix of ['/v2/interact', '/v2/browser']) {
    for (const suffix of ['json/version', 'json/version/']) {
      app.get<{ Params: { id: string } }>(`${prefix}/:id/cdp/${suffix}`, async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return sessions.jsonVersion(request.params.id, token(request), publicBase(config, request));
      });
    }
    app.get<{ Params: { id: string } }>(`${prefix}/:id/live`, async (request, reply) => {
      await sessions.livePage(request.params.id, token(request));
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', livePageCsp)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send(livePageHtml);
    });
  }
}
