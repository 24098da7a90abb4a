import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useApp } from '../helpers/app.ts';

/**
 * A crawl across host names, each a name of the test's own that its resolver sends to loopback:
 * the start host, a subdomain of its site and another site. Subdomains are crawled only with
 * allowSubdomains, the other site only with allowExternalLinks; a calendar that links day after
 * day without end and session-id variants do not crowd out the real pages, and a slow page holds
 * one slot, not the crawl.
 */

const hosts = {
  start: 'harbour.test',
  docs: 'docs.harbour.test',
  other: 'elsewhere.test',
  polite: 'polite.test',
};
type Host = keyof typeof hosts;

const words = (title: string) =>
  `<h1>${title}</h1><p>${title}: a page of the harbour's guide, with words enough to be read as its content.</p>`;

interface Status {
  status: string;
  completed: number;
  data: { markdown?: string; metadata: { sourceURL: string } }[];
}

describe('a crawl across hosts, with a calendar, session ids and a slow page', () => {
  const server = http.createServer((req, res) => dispatch(req, res));
  let port = 0;
  /** The waits crawls asked for shorter than their poll: the Crawl-delays, recorded and not waited. */
  const delays: number[] = [];
  const app = useApp(
    { QUIRE_SCRAPE_ALLOWED_HOSTS: Object.values(hosts).join(','), QUIRE_LOG_LEVEL: 'info' },
    {
      resolveAll: async (name) => {
        if (!Object.values(hosts).includes(name)) throw Object.assign(new Error(name), { code: 'ENOTFOUND' });
        return [{ address: '127.0.0.1', family: 4 }];
      },
      // The poll's own wait (seconds) still passes on the timers: only a delay is the subject.
      jobSleep: (ms, signal) => {
        if (ms < 1000) {
          delays.push(ms);
          return Promise.resolve();
        }
        return sleep(ms, undefined, { signal }).catch(() => undefined);
      },
    },
  );
  /** Pages by host, then path; each request is counted under `host path`. */
  const pages = new Map<string, (req: http.IncomingMessage, res: http.ServerResponse) => void>();
  const hits = new Map<string, number>();
  const url = (host: Host, path: string) => `http://${hosts[host]}:${port}${path}`;
  const page = (host: Host, path: string, body: string) =>
    pages.set(`${hosts[host]} ${path}`, (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><title>Harbour</title></head><body>${body}</body></html>`),
    );
  let releaseSlow!: () => void;
  const slowHeld = new Promise<void>((resolve) => {
    releaseSlow = resolve;
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    page(
      'start',
      '/',
      `${words('Harbour')}<a href="/guide/">Guide</a> <a href="${url('docs', '/api')}">API</a>
       <a href="${url('other', '/harbours')}">Elsewhere</a> <a href="/calendar/2026-01-01">Calendar</a>
       <a href="/slow">Slow</a> <a href="/guide/?sessionid=a1b2c3">Guide again</a>`,
    );
    page(
      'start',
      '/guide/',
      `${words('Guide')}<a href="/guide/locks">Locks</a> <a href="/guide/locks;jsessionid=F00">Locks again</a>`,
    );
    page('start', '/guide/locks', words('Locks'));
    page('docs', '/api', `${words('API')}<a href="/api/v2">Version 2</a>`);
    page('docs', '/api/v2', words('API version 2'));
    page('other', '/harbours', words('Elsewhere'));
    page(
      'polite',
      '/',
      `${words('Polite')}${['a', 'b', 'c', 'd'].map((p) => `<a href="/${p}">${p}</a>`).join(' ')}`,
    );
    for (const p of ['a', 'b', 'c', 'd']) page('polite', `/${p}`, words(`Page ${p}`));
    pages.set(`${hosts.start} /slow`, (_req, res) => {
      void slowHeld.then(() =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Slow</title>${words('Slow')}`),
      );
    });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Page requests to polite.test in flight now, and the most at once. */
  const polite = { inFlight: 0, most: 0 };

  /** Routes by host and path (robots.txt and any other: 404); a calendar day links the next and the day before, for ever. */
  function dispatch(req: http.IncomingMessage, res: http.ServerResponse) {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const path = (req.url ?? '/').split(/[?;]/)[0]!;
    hits.set(`${host} ${path}`, (hits.get(`${host} ${path}`) ?? 0) + 1);
    // The slow page answers once a page found after it has been asked for: it held one slot only.
    if (hits.get(`${hosts.start} /guide/locks`)) releaseSlow();
    const day = /^\/calendar\/(\d{4}-\d\d-\d\d)$/.exec(path)?.[1];
    if (host === hosts.start && day) {
      const at = (d: number) => new Date(Date.parse(day) + d * 86_400_000).toISOString().slice(0, 10);
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<title>${day}</title>${words(`Events on ${day}`)}<a href="/calendar/${at(1)}">Next</a> <a href="/calendar/${at(-1)}">Before</a>`,
        );
    }
    if (host === hosts.polite) {
      if (path === '/robots.txt')
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 0.05\n');
      polite.most = Math.max(polite.most, ++polite.inFlight);
      res.once('finish', () => polite.inFlight--);
    }
    const handler = pages.get(`${host} ${path}`);
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
  }

  const crawl = async (body: Record<string, unknown>): Promise<Status> => {
    const headers = { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' };
    const start = await app().fetch('/v2/crawl', { method: 'POST', headers, body: JSON.stringify(body) });
    assert.equal(start.status, 200, await start.clone().text());
    const { id } = (await start.json()) as { id: string };
    const [, how] = await app().waitForOutput(
      new RegExp(`"job":"${id}","status":"(\\w+)","msg":"job finished"`),
    );
    assert.equal(how, 'completed');
    return (await (await app().fetch(`/v2/crawl/${id}?limit=1000`, { headers })).json()) as Status;
  };
  const where = (status: Status) =>
    status.data.map((d) => {
      const u = new URL(d.metadata.sourceURL);
      return `${u.hostname}${u.pathname}`;
    });

  it('keeps to the start host, bounds the calendar and fetches each page once, past a slow page', async () => {
    const status = await crawl({ url: url('start', '/'), sitemap: 'skip', limit: 40 });
    const found = where(status);
    const real = found.filter((p) => !p.includes('/calendar/')).sort();
    assert.deepEqual(real, [
      'harbour.test/',
      'harbour.test/guide/',
      'harbour.test/guide/locks',
      'harbour.test/slow',
    ]);
    // The calendar took what the limit left, and the crawl ended there.
    assert.equal(found.length, 40);
    assert.match(status.data.find((d) => d.metadata.sourceURL.endsWith('/slow'))?.markdown ?? '', /# Slow/);
    // Session ids in the query or the path named the same pages.
    assert.equal(hits.get(`${hosts.start} /guide/`), 1);
    assert.equal(hits.get(`${hosts.start} /guide/locks`), 1);
    assert.equal(hits.get(`${hosts.docs} /api`), undefined);
    assert.equal(hits.get(`${hosts.other} /harbours`), undefined);
  });

  it('crawls the site’s subdomains with allowSubdomains, and other sites with allowExternalLinks', async () => {
    const subdomains = where(
      await crawl({ url: url('start', '/'), sitemap: 'skip', limit: 40, allowSubdomains: true }),
    );
    assert.ok(subdomains.includes('docs.harbour.test/api'), subdomains.join(' '));
    assert.ok(subdomains.includes('docs.harbour.test/api/v2'));
    assert.ok(!subdomains.some((p) => p.startsWith('elsewhere.test')));
    const external = where(
      await crawl({ url: url('start', '/'), sitemap: 'skip', limit: 40, allowExternalLinks: true }),
    );
    assert.ok(external.includes('elsewhere.test/harbours'), external.join(' '));
  });

  it("keeps to the site's Crawl-delay: one page at a time, the site's delay after each one started", async () => {
    delays.length = 0;
    const status = await crawl({ url: url('polite', '/'), sitemap: 'skip', maxConcurrency: 8 });
    assert.equal(status.data.length, 5);
    assert.equal(polite.most, 1);
    // Crawl-delay: 0.05 in its robots.txt; the wait comes on the crawl's clock, asked for after each page.
    assert.deepEqual(delays, [50, 50, 50, 50, 50]);
  });
});
