import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * A loopback web server for scrapes to fetch: routes by path, with what each path was asked
 * (`seen`: the last request's headers, `hits`: how many requests). An unknown path answers 404.
 */
export class Site {
  readonly server: http.Server | https.Server;
  readonly seen = new Map<string, http.IncomingHttpHeaders>();
  readonly hits = new Map<string, number>();
  private readonly routes = new Map<string, Handler>();
  url = '';

  constructor(tls?: { key: string; cert: string }) {
    const handle: Handler = (req, res) => {
      const route = (req.url ?? '/').split('?')[0]!;
      this.seen.set(route, req.headers);
      this.hits.set(route, (this.hits.get(route) ?? 0) + 1);
      const handler = this.routes.get(route);
      if (handler) handler(req, res);
      else res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${route}`);
    };
    this.server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  }

  on(route: string, handler: Handler): this {
    this.routes.set(route, handler);
    return this;
  }

  serve(route: string, type: string, body: string | Buffer, extra: http.OutgoingHttpHeaders = {}): this {
    return this.on(route, (_req, res) => res.writeHead(200, { 'content-type': type, ...extra }).end(body));
  }

  /** An HTML page: `body` inside a document titled "Harbour", `head` added to its head. */
  page(route: string, body: string, head = ''): this {
    return this.serve(
      route,
      'text/html; charset=utf-8',
      `<!doctype html><html><head><title>Harbour</title>${head}</head><body>${body}</body></html>`,
    );
  }

  redirect(route: string, to: string, status = 302): this {
    return this.on(route, (_req, res) => res.writeHead(status, { location: to }).end());
  }

  async listen(host = '127.0.0.1'): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, host, resolve));
    const scheme = this.server instanceof https.Server ? 'https' : 'http';
    this.url = `${scheme}://${host}:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
