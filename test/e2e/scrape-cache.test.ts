import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Firecrawl from '@mendable/firecrawl-js';
import pg from 'pg';
import { firstPassOnly } from '../helpers/mode.ts';
import { createDatabase } from '../helpers/postgres.ts';
import { type RunningServer, repoRoot, startProcess } from '../helpers/server.ts';

/**
 * The scrape cache (maxAge, cacheState, cachedAt) over HTTP against real servers, on the SQLite
 * store and on PostgreSQL (127.0.0.1:5432, a fresh database per server). A loopback origin counts
 * the requests it gets and writes that count into each page, so a hit shows by both: the origin
 * was not asked again, and the page still says what it said the first time. The cache's keys and
 * lifetimes, on a clock the test moves, are test/unit/scrape-cache.test.ts's.
 */

const run = promisify(execFile);

/** The origin: `hits` by path (query included); /page/* says how often it has been fetched. */
class Origin {
  readonly hits = new Map<string, number>();
  readonly server: http.Server;
  url = '';
  /** Incompressible text per /big/* path, so that each answer takes ~0.3 MB compressed. */
  private readonly big = new Map<string, string>();

  constructor() {
    this.server = http.createServer((req, res) => {
      const route = req.url ?? '/';
      const n = (this.hits.get(route) ?? 0) + 1;
      this.hits.set(route, n);
      const pathname = route.split('?')[0]!;
      if (pathname.startsWith('/page/'))
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<html><head><title>Tides ${pathname}</title></head><body><main><h1>Tide tables</h1><p>This page was fetched ${n} time(s). Tide tables are computed from harmonic constituents, each a sine wave with its own period.</p></main><footer>Harbour office</footer></body></html>`,
          );
      if (pathname.startsWith('/big/')) {
        if (!this.big.has(pathname)) {
          const words = Array.from({ length: 9000 }, () => randomBytes(30).toString('base64url'));
          this.big.set(pathname, words.join(' '));
        }
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><body><p>${this.big.get(pathname)}</p></body></html>`);
      }
      if (pathname === '/missing')
        return res
          .writeHead(404, { 'content-type': 'text/html' })
          .end(`<html><body><h1>Not found</h1><p>Nothing here (${n}).</p></body></html>`);
      if (pathname === '/shot')
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><body style="background:#3a6"><h1>Screenshot me</h1><p>A page with a picture.</p></body></html>',
          );
      res.writeHead(500).end();
    });
  }

  count(route: string): number {
    return this.hits.get(route) ?? 0;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface Reply {
  status: number;
  body: Record<string, any>;
}

async function scrapeOn(server: RunningServer, body: unknown, key = server.key): Promise<Reply> {
  const res = await fetch(`${server.url}/v2/scrape`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Where a server keeps its data: the SQLite file in its data folder, or a PostgreSQL database. */
interface Backend {
  name: string;
  /** Environment for a server on a store of its own. */
  env(): Promise<Record<string, string>>;
  /** Rows and total bytes of the server's cache table. */
  usage(server: RunningServer, env: Record<string, string>): Promise<{ rows: number; bytes: number }>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  return {
    name: 'SQLite',
    env: async () => ({}),
    async usage(server) {
      const db = new DatabaseSync(path.join(server.dataDir, 'quire.db'), { readOnly: true });
      try {
        const row = db
          .prepare('SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM scrape_cache')
          .get() as {
          n: number;
          b: number;
        };
        return { rows: row.n, bytes: row.b };
      } finally {
        db.close();
      }
    },
    cleanup: async () => {},
  };
}

function postgresBackend(): Backend {
  const drops: (() => Promise<void>)[] = [];
  return {
    name: 'PostgreSQL',
    async env() {
      const db = await createDatabase();
      drops.push(db.drop);
      return { QUIRE_DATABASE_URL: db.url };
    },
    async usage(_server, env) {
      const client = new pg.Client({ connectionString: env.QUIRE_DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string; b: string }>(
          'SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM scrape_cache',
        );
        return { rows: Number(rows[0]!.n), bytes: Number(rows[0]!.b) };
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      for (const drop of drops) await drop();
    },
  };
}

/** The `quire` CLI on the server's store. */
function cli(server: RunningServer, env: Record<string, string>) {
  return async (...args: string[]): Promise<string> =>
    (
      await run(process.execPath, [path.join(repoRoot, 'src/cli/quire.ts'), ...args], {
        env: { ...process.env, QUIRE_DATA_DIR: server.dataDir, ...env },
      })
    ).stdout.trim();
}

// The two stores' blocks and the rendered one each run their own server, so they run side by side
// (most of their time is waiting on the origin, a worker or the browser); their tests one after another.
const firstPass = firstPassOnly(
  "starts its embedded servers itself (startProcess) and looks into their SQLite store; the cache on PostgreSQL, which a cluster shares, is PostgresStore's (store-postgres.test.ts)",
);
describe('scrape cache', { concurrency: 3, ...firstPass }, () => {
  for (const backend of [sqliteBackend(), postgresBackend()]) {
    describe(`scrape cache on ${backend.name}`, { concurrency: 1 }, () => {
      const origin = new Origin();
      let server: RunningServer;
      let env: Record<string, string>;
      const scrape = (body: unknown, key?: string) => scrapeOn(server, body, key);

      before(async () => {
        await origin.listen();
        env = await backend.env();
        server = await startProcess({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_WORKERS: '1', ...env });
      });
      after(async () => {
        await server?.stop();
        await origin.close();
        await backend.cleanup();
      });

      it('answers a miss, stores it, then hits with the same body and cachedAt without fetching', async () => {
        const url = `${origin.url}/page/first`;
        const first = await scrape({ url });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.data.metadata.cacheState, 'miss');
        assert.equal(first.body.data.metadata.cachedAt, undefined);
        assert.match(first.body.data.markdown, /fetched 1 time/);

        const second = await scrape({ url, maxAge: 60_000 });
        assert.equal(second.status, 200, JSON.stringify(second.body));
        assert.equal(second.body.data.metadata.cacheState, 'hit');
        // When it was stored, as an ISO time (its value on a moved clock: test/unit/scrape-cache.test.ts).
        const { cachedAt } = second.body.data.metadata;
        assert.equal(new Date(cachedAt).toISOString(), cachedAt);
        assert.equal(second.body.data.markdown, first.body.data.markdown);
        assert.notEqual(second.body.data.metadata.scrapeId, first.body.data.metadata.scrapeId);
        const { cacheState: _a, cachedAt: _b, scrapeId: _c, ...hitMeta } = second.body.data.metadata;
        const { cacheState: _d, scrapeId: _e, ...missMeta } = first.body.data.metadata;
        assert.deepEqual(hitMeta, missMeta);

        // The default maxAge (two days) hits too, with the same cachedAt; the origin saw one request.
        const third = await scrape({ url, formats: ['markdown'] });
        assert.equal(third.body.data.metadata.cacheState, 'hit');
        assert.equal(third.body.data.metadata.cachedAt, second.body.data.metadata.cachedAt);
        assert.equal(origin.count('/page/first'), 1);

        // The same URL written differently is the same entry, answered with its own sourceURL.
        const written = url.replace('http://', 'HTTP://').replace('/page/first', '/page/./first');
        const fourth = await scrape({ url: written });
        assert.equal(fourth.body.data.metadata.cacheState, 'hit');
        assert.equal(fourth.body.data.metadata.sourceURL, written);
        assert.equal(origin.count('/page/first'), 1);
      });

      it('fetches again for maxAge 0, and stores the fresh answer', async () => {
        const url = `${origin.url}/page/fresh`;
        await scrape({ url });
        const zero = await scrape({ url, maxAge: 0 });
        assert.equal(zero.status, 200);
        // Upstream reports no cacheState when the cache was not looked in.
        assert.equal(zero.body.data.metadata.cacheState, undefined);
        assert.match(zero.body.data.markdown, /fetched 2 time/);
        assert.equal(origin.count('/page/fresh'), 2);
        const after = await scrape({ url });
        assert.equal(after.body.data.metadata.cacheState, 'hit');
        assert.match(after.body.data.markdown, /fetched 2 time/);
        assert.equal(origin.count('/page/fresh'), 2);
      });

      it('keys by URL, options and team: each differing scrape is a miss that fetches', async () => {
        const url = `${origin.url}/page/keyed`;
        await scrape({ url });
        const cases: unknown[] = [
          { url: `${url}?v=2` },
          { url, formats: ['html'] },
          { url, onlyMainContent: false },
          { url, excludeTags: ['footer'] },
          { url, location: { country: 'DE' } },
          { url, blockAds: false },
        ];
        for (const body of cases) {
          const reply = await scrape(body);
          assert.equal(reply.status, 200, JSON.stringify(reply.body));
          assert.equal(reply.body.data.metadata.cacheState, 'miss', JSON.stringify(body));
        }
        assert.equal(origin.count('/page/keyed'), 6);
        assert.equal(origin.count('/page/keyed?v=2'), 1);
        // Options that do not shape the answer share the entry.
        const same = await scrape({ url, timeout: 45_000, origin: 'js-sdk@4.42.0', proxy: 'basic' });
        assert.equal(same.body.data.metadata.cacheState, 'hit');

        const otherKey = await cli(server, env)('keys', 'create', '--team', 'cache-other');
        const other = await scrape({ url }, otherKey);
        assert.equal(other.status, 200, JSON.stringify(other.body));
        assert.equal(other.body.data.metadata.cacheState, 'miss');
        assert.equal(origin.count('/page/keyed'), 7);
        assert.equal((await scrape({ url }, otherKey)).body.data.metadata.cacheState, 'hit');
      });

      it('never reads or writes the cache under zero data retention, asked or forced by the team', async () => {
        const url = `${origin.url}/page/zdr`;
        await scrape({ url });
        const rows = (await backend.usage(server, env)).rows;
        for (let i = 0; i < 2; i++) {
          const zdr = await scrape({ url, zeroDataRetention: true });
          assert.equal(zdr.status, 200, JSON.stringify(zdr.body));
          assert.equal(zdr.body.data.metadata.cacheState, undefined);
        }
        assert.equal(origin.count('/page/zdr'), 3);

        const secret = `${origin.url}/page/zdr-only`;
        for (let i = 0; i < 2; i++) await scrape({ url: secret, zeroDataRetention: true });
        assert.equal(origin.count('/page/zdr-only'), 2);

        const run = cli(server, env);
        await run('teams', 'set', 'cache-forced', '--zdr', 'forced');
        const forcedKey = await run('keys', 'create', '--team', 'cache-forced');
        for (let i = 0; i < 2; i++) {
          const forced = await scrape({ url: secret }, forcedKey);
          assert.equal(forced.status, 200, JSON.stringify(forced.body));
          assert.equal(forced.body.data.metadata.cacheState, undefined);
        }
        assert.equal(origin.count('/page/zdr-only'), 4);
        assert.equal((await backend.usage(server, env)).rows, rows);
      });

      it('stores nothing for storeInCache false, headers, failed scrapes and non-2xx pages', async () => {
        const rows = (await backend.usage(server, env)).rows;
        const url = `${origin.url}/page/unstored`;
        for (let i = 0; i < 2; i++) await scrape({ url, storeInCache: false });
        for (let i = 0; i < 2; i++) await scrape({ url, headers: { 'X-Trace': 'a' } });
        assert.equal(origin.count('/page/unstored'), 4);
        const missing = await scrape({ url: `${origin.url}/missing` });
        assert.equal(missing.body.data.metadata.statusCode, 404);
        assert.equal(missing.body.data.metadata.cacheState, 'miss');
        await scrape({ url: `${origin.url}/missing` });
        assert.equal(origin.count('/missing'), 2);
        const broken = await scrape({ url: `${origin.url}/nowhere` });
        assert.equal(broken.body.data.metadata.statusCode, 500);
        const closed = await scrape({ url: 'http://127.0.0.1:1/' });
        assert.equal(closed.body.code, 'SCRAPE_SITE_ERROR');
        assert.equal((await backend.usage(server, env)).rows, rows);
      });

      it("works through the JS SDK's scrape() with maxAge", async () => {
        const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
        const url = `${origin.url}/page/sdk`;
        const first = await client.scrape(url, { formats: ['markdown'], maxAge: 600_000 });
        assert.equal(first.metadata?.cacheState, 'miss');
        const second = await client.scrape(url, { formats: ['markdown'], maxAge: 600_000 });
        assert.equal(second.metadata?.cacheState, 'hit');
        assert.equal(typeof second.metadata?.cachedAt, 'string');
        assert.equal(second.markdown, first.markdown);
        assert.equal(origin.count('/page/sdk'), 1);
      });

      describe('with a 1 MB cap', () => {
        let small: RunningServer;
        let smallEnv: Record<string, string>;
        before(async () => {
          smallEnv = await backend.env();
          small = await startProcess({
            QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
            QUIRE_WORKERS: '1',
            QUIRE_SCRAPE_CACHE_MB: '1',
            ...smallEnv,
          });
        });
        after(() => small?.stop());

        it('evicts the oldest entries once the bodies pass the cap', async () => {
          for (const n of [1, 2, 3, 4]) {
            const reply = await scrapeOn(small, { url: `${origin.url}/big/${n}` });
            assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 500));
            assert.equal(reply.body.data.metadata.cacheState, 'miss');
            const { bytes } = await backend.usage(small, smallEnv);
            assert.ok(bytes <= 2 ** 20, `${bytes} bytes kept`);
          }
          // About 0.3 MB each: the newest three fit, the first went.
          const { rows } = await backend.usage(small, smallEnv);
          assert.ok(rows >= 2 && rows <= 3, `${rows} rows`);
          assert.equal(
            (await scrapeOn(small, { url: `${origin.url}/big/4` })).body.data.metadata.cacheState,
            'hit',
          );
          assert.equal(
            (await scrapeOn(small, { url: `${origin.url}/big/1` })).body.data.metadata.cacheState,
            'miss',
          );
          assert.equal(origin.count('/big/1'), 2);
          assert.equal(origin.count('/big/4'), 1);
        });
      });
    });
  }

  describe('scrape cache entries holding screenshot URLs', { concurrency: 1 }, () => {
    describe('rendered', { concurrency: 1 }, () => {
      const origin = new Origin();
      let server: RunningServer;
      before(async () => {
        await origin.listen();
        server = await startProcess({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_WORKERS: '1' });
      });
      after(async () => {
        await server?.stop();
        await origin.close();
      });

      it('a hit gives the screenshot URL stored with it, which still downloads', {
        timeout: 280_000,
      }, async () => {
        const body = { url: `${origin.url}/shot`, formats: ['markdown', 'screenshot'], timeout: 240_000 };
        const first = await scrapeOn(server, body);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.data.metadata.cacheState, 'miss');
        const second = await scrapeOn(server, body);
        assert.equal(second.body.data.metadata.cacheState, 'hit');
        assert.equal(second.body.data.screenshot, first.body.data.screenshot);
        assert.equal(origin.count('/shot'), 1);
        const image = await fetch(second.body.data.screenshot);
        assert.equal(image.status, 200);
        assert.equal(image.headers.get('content-type'), 'image/png');
      });
    });
  });
});
