import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { validationError } from '../../options/validate.ts';
import { livePageCsp, livePageHtml } from '../../sessions/live-page.ts';
import { forwardRequest, NodeUnreachable } from '../../sessions/node-forward.ts';
import { type PublicBase, type RemoteNode, SessionService } from '../../sessions/session-service.ts';
import type { SessionRecord } from '../../store/store.ts';
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
 * The routes validate and shape; SessionService does the work. In a cluster, a request for a
 * session another live node holds is answered by that node (forwarded, signed for the caller's
 * team): it alone has the browser, the exact last activity and the execute processes.
 */
export async function interactRoutes(app: FastifyInstance, deps: InteractRouteDeps): Promise<void> {
  const { sessions, config } = deps;

  /**
   * The owner's answer when another node holds the session; undefined when this node answers.
   * `whenUnreachable`: what to do when the owner cannot be reached (answer here, or refuse).
   */
  const forwarded = async (
    request: FastifyRequest,
    reply: FastifyReply,
    record: SessionRecord,
    whenUnreachable: 'here' | 'refuse',
  ): Promise<FastifyReply | undefined> => {
    const where = await sessions.locate(record, SessionService.hopped(request.headers));
    if (where.at === 'here') return undefined;
    if (where.at === 'unreachable') {
      if (whenUnreachable === 'here') return undefined;
      throw SessionService.unreachable(where.nodeId);
    }
    const node: RemoteNode = where.node;
    try {
      return await forwardRequest(
        request,
        reply,
        node.url,
        config.QUIRE_NODE_ID,
        await sessions.signFor(node, request),
      );
    } catch (error) {
      if (!(error instanceof NodeUnreachable)) throw error;
      request.log.warn(
        { nodeId: node.nodeId, reason: error.message },
        'node holding the session not reachable',
      );
      if (whenUnreachable === 'here') return undefined;
      throw SessionService.unreachable(node.nodeId);
    }
  };

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

  app.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
    const record = await sessions.get(request.principal!.team, request.params.id);
    // Unreachable: the store's record, whose last activity may trail by a few seconds.
    const there = await forwarded(request, reply, record, 'here');
    if (there) return there;
    return {
      success: true,
      ...sessions.view(record, publicBase(config, request)),
      expiresAt: record.expiresAt,
      closedAt: record.closedAt,
      closeReason: record.closeReason,
    };
  });

  app.delete<{ Params: { id: string } }>('/:id', async (request, reply) => {
    // Unreachable: marked destroyed in the store, which the owner, if alive, follows.
    const there = await forwarded(
      request,
      reply,
      await sessions.get(request.principal!.team, request.params.id),
      'here',
    );
    if (there) return there;
    const { sessionDurationMs } = await sessions.destroy(request.principal!.team, request.params.id);
    return { success: true, status: 'destroyed', sessionDurationMs };
  });

  app.post<{ Params: { id: string } }>('/:id/execute', async (request, reply) => {
    const body = parse(executeBody, 'body', request.body);
    if (body.language !== 'node') {
      throw new ApiError(
        400,
        'BAD_REQUEST',
        `body.language "${body.language}" is not supported by Quire; execute runs Node code with Playwright (language: "node").`,
      );
    }
    // Execute's own switch is the owner's: it runs code on the owner's host.
    const there = await forwarded(
      request,
      reply,
      await sessions.get(request.principal!.team, request.params.id),
      'refuse',
    );
    if (there) return there;
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
  const viaNode = async (request: FastifyRequest, reply: FastifyReply, node: RemoteNode) => {
    try {
      return await forwardRequest(request, reply, node.url, config.QUIRE_NODE_ID);
    } catch (error) {
      if (error instanceof NodeUnreachable) throw SessionService.unreachable(node.nodeId);
      throw error;
    }
  };
  const token = (request: FastifyRequest) => {
    const value = (request.query as Record<string, unknown>).token;
    return typeof value === 'string' ? value : undefined;
  };

  for (const prefix of ['/v2/interact', '/v2/browser']) {
    for (const suffix of ['json/version', 'json/version/']) {
      app.get<{ Params: { id: string } }>(`${prefix}/:id/cdp/${suffix}`, async (request, reply) => {
        const answer = await sessions.jsonVersion(
          request.params.id,
          token(request),
          publicBase(config, request),
          SessionService.hopped(request.headers),
        );
        // The owner answers with its own headers; the token goes as it came, for it to check.
        if (answer.remote) return viaNode(request, reply, answer.remote);
        reply.header('cache-control', 'no-store');
        return answer.body;
      });
    }
    app.get<{ Params: { id: string } }>(`${prefix}/:id/live`, async (request, reply) => {
      const remote = await sessions.livePage(
        request.params.id,
        token(request),
        SessionService.hopped(request.headers),
      );
      if (remote) return viaNode(request, reply, remote);
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('content-security-policy', livePageCsp)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .send(livePageHtml);
    });
  }
}
