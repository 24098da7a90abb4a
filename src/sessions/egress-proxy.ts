import { lookup } from 'node:dns/promises';
import http from 'node:http';
import net from 'node:net';
import { type Duplex, pipeline } from 'node:stream';
import type { NetPolicy } from './net-policy.ts';

/** Hop-by-hop and proxy headers that are not passed on to the origin. */
const dropHeaders = new Set([
  'proxy-connection',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
]);

class Refused extends Error {}

/** Every address of a host name, as `dns.promises.lookup` with `all: true` gives them. */
export type LookupAll = (hostname: string) => Promise<readonly { address: string }[]>;

const systemLookup: LookupAll = (hostname) => lookup(hostname, { all: true, order: 'ipv4first' });

/**
 * The browsers' only way out: an HTTP forward proxy (CONNECT for TLS and WebSockets, absolute
 * URLs for plain HTTP) on loopback. It resolves every name itself, refuses when any address is
 * private, loopback or link-local, and connects to the very address it checked, so a name that
 * resolves differently a moment later (DNS rebinding) gains nothing. Redirects and subresources
 * pass through here too, which URL checks in the CDP relay alone would miss.
 */
export class EgressProxy {
  private readonly server: http.Server;
  private readonly policy: NetPolicy;
  private readonly sockets = new Set<Duplex>();
  private readonly lookupAll: LookupAll;

  /** `lookupAll` resolves names; the system resolver unless a test gives its own. */
  constructor(policy: NetPolicy, lookupAll: LookupAll = systemLookup) {
    this.policy = policy;
    this.lookupAll = lookupAll;
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on('connect', (req, socket, head) => void this.tunnel(req, socket, head));
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** The address to connect to for a host, or a Refused error saying why not. */
  private async resolve(hostname: string): Promise<string> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const early = this.policy.refuseHost(host);
    if (early) throw new Refused(early);
    if (net.isIP(host) !== 0) return host;
    const addresses = await this.lookupAll(host);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    const refused = this.policy.refuseAddresses(host, addresses);
    if (refused) throw new Refused(refused);
    return addresses[0]!.address;
  }

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end('Quire egress proxy: absolute http URL expected.\n');
      return;
    }
    let address: string;
    try {
      address = await this.resolve(target.hostname);
    } catch (error) {
      const refused = error instanceof Refused;
      res
        .writeHead(refused ? 403 : 502, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Quire refused this request: ${(error as Error).message}.\n`);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!dropHeaders.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = http.request({
      host: address,
      port: target.port || 80,
      path: `${target.pathname}${target.search}`,
      method: req.method,
      headers,
      setHost: false,
    });
    upstream.on('response', (answer) => {
      const back: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!dropHeaders.has(name) && value !== undefined) back[name] = value;
      }
      try {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, back);
      } catch (error) {
        // Node's parser lets through what its writer refuses (status 000, control characters
        // in the reason phrase): any site could otherwise throw here, outside every handler.
        // The refused reason phrase stays on `res` unless another is given.
        answer.destroy();
        res
          .writeHead(502, 'Bad Gateway', { 'content-type': 'text/plain' })
          .end(`Quire egress proxy: ${(error as Error).message}\n`);
        return;
      }
      // pipeline, not pipe: a browser leaving mid-answer (a long poll, an event stream) also
      // closes the connection to the origin, which pipe would leave open for good.
      pipeline(answer, res, () => {});
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`Quire egress proxy: ${error.message}\n`);
    });
    pipeline(req, upstream, () => {});
  }

  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.track(client);
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(req.url ?? '');
    // net.connect throws on a port past 65535, which would be an unhandled rejection here.
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    let address: string;
    try {
      address = await this.resolve(match[1]!);
    } catch (error) {
      const status = error instanceof Refused ? '403 Forbidden' : '502 Bad Gateway';
      client.end(
        `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\n\r\nQuire refused this request: ${(error as Error).message}.\n`,
      );
      return;
    }
    const upstream = net.connect(Number(match[2]), address);
    this.track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => {
      if (!connected && !client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }
}
