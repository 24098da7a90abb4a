import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ApiError } from '../errors.ts';
import { limits } from '../limits.ts';
import type { KeyOwner } from '../store/store.ts';

/**
 * Requests for a session held by another node of the cluster go to that node: plain requests
 * through an HTTP request of our own, WebSocket upgrades by piping the raw sockets once the
 * upgrade request is written on. Written here rather than taken from http-proxy (unmaintained
 * since 2020, and it would still need the hop header and the signature below): what is needed is
 * one request and one socket pipe.
 */

/** Set on every forwarded request: a node never forwards a request that carries it again. */
export const HOP_HEADER = 'x-quire-hop';
const SIGNATURE_HEADER = 'x-quire-forward';

/** Headers that describe one connection, not the request: never passed on. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  HOP_HEADER,
  SIGNATURE_HEADER,
]);

/** The owner could not be reached at all (nothing was sent to it): the caller may fall back. */
export class NodeUnreachable extends Error {}

const digest = (body: unknown): string =>
  body === undefined ? '' : createHash('sha256').update(JSON.stringify(body)).digest('hex');

interface Signed {
  node: string;
  team: string;
  keyId: string;
  at: number;
  nonce: string;
  body: string;
  sig: string;
}

function isSigned(value: unknown): value is Signed {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    ['node', 'team', 'keyId', 'nonce', 'body', 'sig'].every((k) => typeof v[k] === 'string') &&
    typeof v.at === 'number'
  );
}

/**
 * Trust between the nodes for requests made with an API key: the node that received one checks
 * the key and its rate limit, then forwards it signed with a key derived from the cluster's
 * shared QUIRE_SESSION_SECRET (HMAC over method, URL, team, key id, time, a nonce and the body's
 * digest). The owner accepts a signed request as that team without a key of its own and without
 * counting it against the rate again; a signature that is wrong, old or replayed is a 401.
 * Requests opened by a session token need none of this: they are forwarded as they came, and
 * the owner checks the token against the hashes in the shared store.
 */
export class ForwardAuth {
  private readonly key: Buffer;
  private readonly redis: Redis;
  private readonly prefix: string;
  /** Published in the node registry, so that nodes whose secrets differ are named as such. */
  readonly keyId: string;

  constructor(key: Buffer, redis: Redis, prefix: string) {
    this.key = key;
    this.redis = redis;
    this.prefix = prefix;
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  private mac(method: string, url: string, s: Omit<Signed, 'sig'>): Buffer {
    return createHmac('sha256', this.key)
      .update(JSON.stringify([method, url, s.node, s.team, s.keyId, s.at, s.nonce, s.body]))
      .digest();
  }

  /** The header value that lets the owner accept this request as `owner`'s. */
  sign(method: string, url: string, node: string, owner: KeyOwner, body: unknown): string {
    const fields = {
      node,
      team: owner.team,
      keyId: owner.keyId,
      at: Date.now(),
      nonce: randomBytes(16).toString('hex'),
      body: digest(body),
    };
    const sig = this.mac(method, url, fields).toString('base64url');
    return Buffer.from(JSON.stringify({ ...fields, sig })).toString('base64url');
  }

  /**
   * The caller a signed forwarded request was made for; undefined when it is not one. Its body
   * is checked afterwards, once parsed (bodyMatches).
   */
  async verify(request: FastifyRequest): Promise<(KeyOwner & { bodyDigest: string }) | undefined> {
    const header = request.headers[SIGNATURE_HEADER];
    if (header === undefined) return undefined;
    const refused = () => new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: invalid forwarded request');
    let signed: unknown;
    try {
      signed = JSON.parse(Buffer.from(String(header), 'base64url').toString('utf8'));
    } catch {
      throw refused();
    }
    if (!isSigned(signed)) throw refused();
    const expected = this.mac(request.method, request.url, signed);
    const given = Buffer.from(signed.sig, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
    if (Math.abs(Date.now() - signed.at) > limits.forwardSkewMs) throw refused();
    // Once only: a request seen on the network between nodes cannot be sent again.
    const fresh = await this.redis.set(
      `${this.prefix}:forward-nonce:${signed.nonce}`,
      '1',
      'PX',
      2 * limits.forwardSkewMs,
      'NX',
    );
    if (fresh !== 'OK') throw refused();
    return { team: signed.team, keyId: signed.keyId, bodyDigest: signed.body };
  }

  /** Whether the parsed body is the one that was signed. */
  static bodyMatches(body: unknown, signedDigest: string): boolean {
    return digest(body) === signedDigest;
  }
}

/** Where a node listens, split for a client request or socket. */
function target(base: string): { secure: boolean; host: string; port: number } {
  const url = new URL(base);
  const secure = url.protocol === 'https:';
  return {
    secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (secure ? 443 : 80),
  };
}

/** The request's headers to pass on, without those of its own connection. */
function passedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) out[name] = value;
  }
  return out;
}

/**
 * Send the request on to the node at `base` and the node's answer back, streamed both ways.
 * `signature` (API-key routes) replaces the caller's Authorization; token routes go without.
 * Throws NodeUnreachable when no connection could be made, before anything was sent.
 */
export function forwardRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  base: string,
  from: string,
  signature?: string,
): Promise<FastifyReply> {
  const { secure, host, port } = target(base);
  const headers = passedHeaders(request.headers);
  delete headers.authorization;
  headers[HOP_HEADER] = from;
  headers['x-request-id'] = request.id;
  if (signature) headers[SIGNATURE_HEADER] = signature;
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    let connected = false;
    // A fresh connection each time (no keep-alive agent), so that 'connect' always comes and a
    // node that does not answer is told from one that answers slowly (execute runs for minutes).
    const outgoing = (secure ? https : http).request({
      host,
      port,
      method: request.method,
      path: request.url,
      headers,
      agent: false,
    });
    const timer = setTimeout(
      () => outgoing.destroy(new NodeUnreachable(`no connection within ${limits.nodeConnectMs} ms`)),
      limits.nodeConnectMs,
    );
    outgoing.once('socket', (socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        connected = true;
        clearTimeout(timer);
      });
    });
    outgoing.once('error', (error) => {
      clearTimeout(timer);
      if (!connected) reject(new NodeUnreachable(error.message));
      else
        reject(
          new ApiError(502, undefined, `The node holding this session failed to answer: ${error.message}`),
        );
    });
    outgoing.once('response', (answer: IncomingMessage) => {
      // The caller left: the owner stops too (an execute is killed there).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) outgoing.destroy();
      });
      const back = passedHeaders(answer.headers);
      delete back['x-request-id'];
      resolve(
        reply
          .code(answer.statusCode ?? 502)
          .headers(back)
          .send(answer),
      );
    });
    outgoing.end(body);
  });
}

/**
 * Hand a WebSocket upgrade to the node at `base`: the upgrade request is written on as it came
 * (with the hop header), then the two sockets are piped, so the owner answers the handshake,
 * checks the token itself and speaks to the client directly. `refuse` answers the client when
 * the node cannot be reached.
 */
export function pipeUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  base: string,
  from: string,
  refuse: (error: ApiError) => void,
): void {
  const { secure, host, port } = target(base);
  const upstream = secure
    ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
    : net.connect({ host, port });
  let connected = false;
  const timer = setTimeout(
    () => upstream.destroy(new Error(`no connection within ${limits.nodeConnectMs} ms`)),
    limits.nodeConnectMs,
  );
  upstream.once(secure ? 'secureConnect' : 'connect', () => {
    connected = true;
    clearTimeout(timer);
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (lower === HOP_HEADER || lower === SIGNATURE_HEADER || lower === 'authorization') continue;
      lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    lines.push(`${HOP_HEADER}: ${from}`);
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    socket.pipe(upstream);
    upstream.pipe(socket);
    upstream.once('close', () => socket.destroy());
  });
  upstream.on('error', (error) => {
    clearTimeout(timer);
    if (!connected) {
      refuse(
        new ApiError(502, undefined, `The node holding this session could not be reached: ${error.message}`),
      );
    } else socket.destroy();
  });
  socket.once('close', () => upstream.destroy());
}
