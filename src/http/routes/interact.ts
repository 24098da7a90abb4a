import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { limits } from '../../limits.ts';
import { validationError } from '../../options/validate.ts';
import { livePageCsp, livePageHtml } from '../../sessions/live-page.ts';
import type { PublicBase, SessionService } from '../../sessions/session-service.ts';
import { ApiError } from '../errors.ts';

export interface InteractRouteDeps {
  sessions: SessionService;
  config: Config;
}

const between = (min: number, max: number) => `must be an integer from ${min} to ${max}`;
const intBetween = (min: number, max: number, fallback: number) =>
  z
    .number({ error: between(min, max) })
    .int({ error: between(min, max) })
    .min(min, { error: between(min, max) })
    .max(max, { error: between(min, max) })
    .default(fallback);

/** Upstream's create body (behaviour doc §7); unknown keys are refused by name. */
const createBody = z.strictObject({
  ttl: intBetween(limits.sessionTtlMinS, limits.sessionTtlMaxS, limits.sessionTtlDefaultS),
  activityTtl: intBetween(
    limits.sessionActivityTtlMinS,
    limits.sessionActivityTtlMaxS,
    limits.sessionActivityTtlDefaultS,
  ),
  streamWebView: z.boolean({ error: 'must be a boolean' }).default(true),
  recordSession: z.boolean({ error: 'must be a boolean' }).optional(),
  profile: z
    .strictObject({
      name: z
        .string({ error: `must be a string of 1 to ${limits.profileNameChars} characters` })
        .min(1, { error: `must be a string of 1 to ${limits.profileNameChars} characters` })
        .max(limits.profileNameChars, {
          error: `must be a string of 1 to ${limits.profileNameChars} characters`,
        }),
      saveChanges: z.boolean({ error: 'must be a boolean' }).default(true),
    })
    .optional(),
  integration: z.string({ error: 'must be a string' }).nullable().optional(),
  origin: z.string({ error: 'must be a string' }).optional(),
});

const executeBody = z.strictObject({
  code: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .refine((code) => Buffer.byteLength(code) <= limits.executeCodeBytes, {
      error: `must be at most ${limits.executeCodeBytes} bytes`,
    }),
  language: z
    .enum(['node', 'python', 'bash'], { error: 'must be one of node, python, bash' })
    .default('node'),
  timeout: intBetween(limits.executeTimeoutMinS, limits.executeTimeoutMaxS, limits.executeTimeoutDefaultS),
  origin: z.string({ error: 'must be a string' }).optional(),
});

const listQuery = z.strictObject({
  status: z.enum(['active', 'destroyed'], { error: 'must be active or destroyed' }).optional(),
});

function parse<T extends z.ZodType>(schema: T, root: string, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) throw validationError(root, parsed.error, input);
  return parsed.data;
}

/** Where the caller reached us: the configured public URL, else the request's own host. */
function publicBase(config: Config, request: FastifyRequest): PublicBase {
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
    const body = parse(createBody, 'body', request.body);
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
    const query = parse(listQuery, 'query', request.query);
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
