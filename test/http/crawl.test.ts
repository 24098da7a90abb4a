import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/store/api-keys.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { useApp } from '../helpers/app.ts';
import { para, run, wordPackage } from '../helpers/docx.ts';
import { pagesOf } from '../helpers/pdf.ts';
import { appShell } from '../helpers/scrape-pages.ts';
import { Site } from '../helpers/site.ts';

/**
 * Crawl, batch scrape and map through the HTTP contract in-process, against a site served on
 * loopback: discovery (sitemap, links, robots.txt), dedupe, the job's status with pagination,
 * its errors, cancel, the active list, and validation.
 */

const site = new Site();
const pdfFont = '<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>';
const pdfLine = (words: string) => `BT /F1 14 Tf 72 700 Td (${words}) Tj ET`;
const text = (name: string) =>
  `<h1>${name}</h1><p>${name} is a page of the harbour guide with enough words to be read as content by the converter.</p>`;

function buildSite(base: () => string) {
  site.serve('/robots.txt', 'text/plain', 'User-agent: *\nDisallow: /docs/private\n');
  site.on('/sitemap.xml', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/xml' })
      .end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base()}/docs/tides</loc></url><url><loc>${base()}/docs/private/keys</loc></url></urlset>`,
      ),
  );
  site.page(
    '/docs/',
    `${text('Start')}<a href="/docs/boats">Boats</a> <a href="/docs/boats?utm_source=x">Boats again</a> <a href="/docs/boats/">Boats slash</a> <a href="/docs/private/ledger">Ledger</a> <a href="/elsewhere">Outside</a> <a href="mailto:a@b.example">Mail</a>`,
  );
  site.page(
    '/docs/boats',
    `${text('Boats')}<a href="/docs/">Start</a><a href="/docs/boats/moorings">Moorings</a>`,
  );
  site.page('/docs/boats/moorings', text('Moorings'));
  site.page('/docs/tides', text('Tides'));
  site.page('/elsewhere', text('Elsewhere'));
}

interface Status {
  success: boolean;
  status: string;
  completed: number;
  total: number;
  creditsUsed: number;
  expiresAt: string;
  next?: string;
  data: { markdown?: string; metadata: { sourceURL: string; scrapeId: string; statusCode: number } }[];
}

describe('crawl, batch scrape and map', () => {
  // Info, for the line each job logs as it finishes.
  const app = useApp({
    QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_WEBHOOK_SECRET: 'harbour-secret',
  });
  before(async () => {
    buildSite(() => site.url);
    await site.listen();
  });
  after(() => site.close());

  const post = (path: string, body: unknown) =>
    app().fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = (path: string) => app().fetch(path, { headers: { authorization: `Bearer ${app().key}` } });
  const finished = (id: string) =>
    app().waitForOutput(new RegExp(`"job":"${id}","status":"(\\w+)","msg":"job finished"`));

  it('crawls a site to completion: sitemap and links, in scope, once each, robots.txt obeyed', async () => {
    const start = await post('/v2/crawl', { url: `${site.url}/docs/`, origin: 'js-sdk@4.42.0' });
    assert.equal(start.status, 200);
    const started = (await start.json()) as { success: boolean; id: string; url: string };
    assert.equal(started.success, true);
    assert.match(started.url, new RegExp(`/v2/crawl/${started.id}$`));
    const [, how] = await finished(started.id);
    assert.equal(how, 'completed');
    const status = (await (await get(`/v2/crawl/${started.id}`)).json()) as Status;
    assert.equal(status.status, 'completed');
    const urls = status.data.map((d) => new URL(d.metadata.sourceURL).pathname).sort();
    assert.deepEqual(urls, ['/docs/', '/docs/boats', '/docs/boats/moorings', '/docs/tides']);
    assert.equal(status.completed, 4);
    assert.equal(status.total, 4);
    assert.equal(status.creditsUsed, 4);
    assert.equal(status.next, undefined);
    assert.match(status.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    const boats = status.data.find((d) => d.metadata.sourceURL.endsWith('/docs/boats'));
    assert.match(boats?.markdown ?? '', /# Boats/);
    // The variants of /docs/boats were one page; robots.txt kept the private pages out.
    assert.equal(site.hits.get('/docs/boats'), 1);
    assert.equal(site.hits.get('/docs/private/ledger'), undefined);
    assert.equal(site.hits.get('/elsewhere'), undefined);
    const errors = (await (await get(`/v2/crawl/${started.id}/errors`)).json()) as {
      errors: unknown[];
      robotsBlocked: string[];
    };
    assert.deepEqual(errors.errors, []);
    assert.deepEqual(errors.robotsBlocked.map((u) => new URL(u).pathname).sort(), [
      '/docs/private/keys',
      '/docs/private/ledger',
    ]);
  });

  it('pages the status by ?limit, with next until the last finished document', async () => {
    const { id } = (await (await post('/v2/crawl', { url: `${site.url}/docs/` })).json()) as { id: string };
    await finished(id);
    const first = (await (await get(`/v2/crawl/${id}?limit=3`)).json()) as Status;
    assert.equal(first.data.length, 3);
    assert.ok(first.next);
    const next = new URL(first.next);
    assert.equal(next.pathname, `/v2/crawl/${id}`);
    assert.equal(next.search, '?skip=3&limit=3');
    const second = (await (await get(`${next.pathname}${next.search}`)).json()) as Status;
    assert.equal(second.data.length, 1);
    assert.equal(second.next, undefined);
    const all = [...first.data, ...second.data].map((d) => d.metadata.scrapeId);
    assert.equal(new Set(all).size, 4);
    const late = await app().fetch(`/v2/crawl/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app().key}` },
    });
    assert.equal(late.status, 409);
    assert.deepEqual(await late.json(), { success: false, error: 'Crawl is already completed' });
    const bad = await get(`/v2/crawl/${id}?limit=0`);
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /Invalid pagination: limit/);
  });

  it('follows maxDiscoveryDepth, includePaths and limit', async () => {
    const { id } = (await (
      await post('/v2/crawl', { url: `${site.url}/docs/`, maxDiscoveryDepth: 1, sitemap: 'skip' })
    ).json()) as { id: string };
    await finished(id);
    const status = (await (await get(`/v2/crawl/${id}`)).json()) as Status;
    assert.deepEqual(status.data.map((d) => new URL(d.metadata.sourceURL).pathname).sort(), [
      '/docs/',
      '/docs/boats',
    ]);
    const limited = (await (await post('/v2/crawl', { url: `${site.url}/docs/`, limit: 2 })).json()) as {
      id: string;
    };
    await finished(limited.id);
    assert.equal(((await (await get(`/v2/crawl/${limited.id}`)).json()) as Status).data.length, 2);
    const included = (await (
      await post('/v2/crawl', { url: `${site.url}/docs/`, includePaths: ['^/docs/boats'] })
    ).json()) as { id: string };
    await finished(included.id);
    const only = ((await (await get(`/v2/crawl/${included.id}`)).json()) as Status).data.map(
      (d) => new URL(d.metadata.sourceURL).pathname,
    );
    // The seed fails the pattern (not returned) but its links are followed.
    assert.deepEqual(only.sort(), ['/docs/boats', '/docs/boats/moorings']);
  });

  it('cancels a crawl: status cancelled at once, out of the active list', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    site.on('/slow/', (_req, res) => {
      void held.then(() =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>s</title>${text('Slow')}`),
      );
    });
    const { id } = (await (
      await post('/v2/crawl', { url: `${site.url}/slow/`, sitemap: 'skip' })
    ).json()) as {
      id: string;
    };
    const active = (await (await get('/v2/crawl/active')).json()) as {
      success: boolean;
      crawls: { id: string; url: string }[];
    };
    assert.equal(active.success, true);
    assert.ok(active.crawls.some((c) => c.id === id && c.url === `${site.url}/slow/`));
    const cancelled = await app().fetch(`/v2/crawl/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app().key}` },
    });
    assert.deepEqual(await cancelled.json(), { success: true, status: 'cancelled' });
    release();
    const [, how] = await finished(id);
    assert.equal(how, 'cancelled');
    assert.equal(((await (await get(`/v2/crawl/${id}`)).json()) as Status).status, 'cancelled');
    const active2 = (await (await get('/v2/crawl/active')).json()) as { crawls: { id: string }[] };
    assert.ok(!active2.crawls.some((c) => c.id === id));
  });

  it("counts a batch's pages that wait to be fetched in the team's queue status", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const firstFetch = new Promise<void>((resolve) => {
      reached = resolve;
    });
    site.on('/held', (_req, res) => {
      reached();
      void held.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(text('Held')));
    });
    // One page at a time: once the first is being fetched, the other four wait.
    const urls = Array.from({ length: 5 }, (_, i) => `${site.url}/held?copy=${i}`);
    const { id } = (await (await post('/v2/batch/scrape', { urls, maxConcurrency: 1 })).json()) as {
      id: string;
    };
    await firstFetch;
    const queue = (await (await get('/v2/team/queue-status')).json()) as Record<string, unknown>;
    assert.equal(queue.waitingJobsInQueue, 4);
    assert.equal(queue.jobsInQueue, 4);
    const done = finished(id);
    await app().fetch(`/v2/batch/scrape/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${app().key}` },
    });
    release();
    await done;
    const after = (await (await get('/v2/team/queue-status')).json()) as Record<string, unknown>;
    assert.equal(after.waitingJobsInQueue, 0);
  });

  it('batch scrapes a list, reporting invalid URLs and keeping duplicates', async () => {
    const start = await post('/v2/batch/scrape', {
      urls: [`${site.url}/docs/tides`, 'not a url', `${site.url}/docs/tides`, `${site.url}/missing`],
      formats: ['markdown', 'links'],
    });
    assert.equal(start.status, 200);
    const started = (await start.json()) as { id: string; url: string; invalidURLs: string[] };
    assert.deepEqual(started.invalidURLs, ['not a url']);
    assert.match(started.url, new RegExp(`/v2/batch/scrape/${started.id}$`));
    await finished(started.id);
    const status = (await (await get(`/v2/batch/scrape/${started.id}`)).json()) as Status;
    assert.equal(status.status, 'completed');
    assert.equal(status.data.length, 3);
    assert.deepEqual(status.data.map((d) => d.metadata.statusCode).sort(), [200, 200, 404]);
  });

  it('maps a site from its sitemap and start page, ranked by search', async () => {
    const res = await post('/v2/map', { url: `${site.url}/docs/`, search: 'moorings boats' });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { success: boolean; links: { url: string }[] };
    assert.equal(body.success, true);
    const paths = body.links.map((l) => new URL(l.url).pathname);
    assert.ok(paths.includes('/docs/tides'));
    assert.ok(paths.includes('/docs/boats'));
    assert.equal(paths.filter((p) => p === '/docs/boats').length, 1);
    assert.ok(!paths.includes('/elsewhere'));
  });

  it('sends signed webhook events in order: started, one per page, completed', async () => {
    const receiver = new Site();
    const events: { body: string; signature: string | undefined; token: string | undefined }[] = [];
    let done!: () => void;
    const completed = new Promise<void>((resolve) => {
      done = resolve;
    });
    receiver.on('/hook', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        events.push({
          body,
          signature: req.headers['x-firecrawl-signature'] as string | undefined,
          token: req.headers['x-token'] as string | undefined,
        });
        res.writeHead(200).end();
        if ((JSON.parse(body) as { type: string }).type === 'crawl.completed') done();
      });
    });
    await receiver.listen();
    try {
      const { id } = (await (
        await post('/v2/crawl', {
          url: `${site.url}/docs/`,
          webhook: {
            url: `${receiver.url}/hook`,
            headers: { 'x-token': 't1' },
            metadata: { run: 'nightly' },
          },
        })
      ).json()) as { id: string };
      await completed;
      const bodies = events.map(
        (e) => JSON.parse(e.body) as { type: string; id: string; data: unknown[]; metadata: unknown },
      );
      assert.deepEqual(
        bodies.map((b) => b.type),
        ['crawl.started', 'crawl.page', 'crawl.page', 'crawl.page', 'crawl.page', 'crawl.completed'],
      );
      for (const [i, event] of events.entries()) {
        assert.equal(bodies[i]!.id, id);
        assert.deepEqual(bodies[i]!.metadata, { run: 'nightly' });
        assert.equal(event.token, 't1');
        const expected = createHmac('sha256', 'harbour-secret').update(event.body).digest('hex');
        assert.equal(event.signature, `sha256=${expected}`);
      }
      const pages = bodies
        .filter((b) => b.type === 'crawl.page')
        .map((b) => new URL((b.data[0] as { metadata: { sourceURL: string } }).metadata.sourceURL).pathname);
      assert.deepEqual(pages.sort(), ['/docs/', '/docs/boats', '/docs/boats/moorings', '/docs/tides']);
    } finally {
      await receiver.close();
    }
  });

  it("clamps a crawl to the team's credits, charges one per page, and refuses a team with none", async () => {
    const store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    try {
      const { key } = await createApiKey(store, 'payer');
      await store.updateTeam('payer', { credits: 3 });
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const start = await app().fetch('/v2/crawl', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: `${site.url}/docs/` }),
      });
      const { id } = (await start.json()) as { id: string };
      await finished(id);
      const status = (await (await app().fetch(`/v2/crawl/${id}`, { headers: auth })).json()) as Status;
      assert.equal(status.data.length, 3);
      assert.equal(status.creditsUsed, 3);
      assert.equal((await store.getTeam('payer'))?.credits, 0);
      const broke = await app().fetch('/v2/crawl', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: `${site.url}/docs/` }),
      });
      assert.equal(broke.status, 402);
      // Another team's job is not this team's to read.
      const foreign = await app().fetch(`/v2/crawl/${id}`, {
        headers: { authorization: `Bearer ${app().key}` },
      });
      assert.equal(foreign.status, 404);
    } finally {
      await store.close();
    }
  });

  it('stops a crawl cleanly when the balance runs out mid-way, the page that found it empty listed', async () => {
    const store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    try {
      const { key } = await createApiKey(store, 'thrifty');
      await store.updateTeam('thrifty', { credits: 3 });
      // One page at a time: the start page (1 credit), then a two-page PDF that the 2 left pay for
      // with one of its pages (its pages are paid before they are read), then nothing left.
      site.page(
        '/ledger/',
        `${text('Ledger')}<a href="/ledger/accounts.pdf">Accounts</a> <a href="/ledger/notes">Notes</a>`,
      );
      site.serve(
        '/ledger/accounts.pdf',
        'application/pdf',
        Buffer.from(pagesOf([pdfLine('Accounts, page one'), pdfLine('Accounts, page two')], pdfFont)),
      );
      site.page('/ledger/notes', text('Notes'));
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const start = await app().fetch('/v2/crawl', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: `${site.url}/ledger/`, sitemap: 'skip', maxConcurrency: 1 }),
      });
      const { id } = (await start.json()) as { id: string };
      const [, how] = await finished(id);
      assert.equal(how, 'completed');
      const status = (await (await app().fetch(`/v2/crawl/${id}`, { headers: auth })).json()) as Status;
      assert.deepEqual(status.data.map((d) => new URL(d.metadata.sourceURL).pathname).sort(), [
        '/ledger/',
        '/ledger/accounts.pdf',
      ]);
      assert.equal(status.creditsUsed, 3);
      const pdf = status.data.find((d) => d.metadata.sourceURL.endsWith('.pdf')) as Status['data'][number] & {
        warning?: string;
        metadata: { numPages?: number };
      };
      assert.equal(pdf.metadata.numPages, 1);
      assert.match(pdf.warning ?? '', /The team's credits paid for 1 of the document's 2 pages/);
      assert.equal((await store.getTeam('thrifty'))?.credits, 0);
      const errors = (await (await app().fetch(`/v2/crawl/${id}/errors`, { headers: auth })).json()) as {
        errors: { url: string; code: string }[];
      };
      assert.deepEqual(
        errors.errors.map((e) => [new URL(e.url).pathname, e.code]),
        [['/ledger/notes', 'INSUFFICIENT_CREDITS']],
      );
      assert.equal(site.hits.get('/ledger/notes'), undefined, 'a page nobody can pay for is not fetched');
    } finally {
      await store.close();
    }
  });

  it('runs a job under zero data retention: each document handed over once, nothing cached', async () => {
    const store = new SqliteStore(path.join(app().dataDir, 'quire.db'));
    try {
      const keys = {
        asks: (await createApiKey(store, 'private')).key,
        forced: (await createApiKey(store, 'forced')).key,
        forbidden: (await createApiKey(store, 'nozdr')).key,
      };
      await store.updateTeam('forced', { zdr: 'forced' });
      await store.updateTeam('nozdr', { zdr: 'forbidden' });
      const call = async (key: string, at: string, body?: unknown) => {
        const res = await app().fetch(at, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Status & { id: string; error: string } };
      };
      const urls = [`${site.url}/docs/tides`, `${site.url}/docs/boats`];

      const refused = await call(keys.forbidden, '/v2/batch/scrape', { urls, zeroDataRetention: true });
      assert.equal(refused.status, 403);
      assert.match(refused.body.error, /Zero Data Retention \(ZDR\) is not enabled for your team/);

      // One page at a time, the second held until the first is stored: nothing is handed over
      // while the job runs (an SDK's waiter keeps only the status it reads last).
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached!: () => void;
      const second = new Promise<void>((resolve) => {
        reached = resolve;
      });
      site.on('/held/boats', (_req, res) => {
        reached();
        void held.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(text('Boats')));
      });
      urls[1] = `${site.url}/held/boats`;
      const { id } = (
        await call(keys.asks, '/v2/batch/scrape', { urls, zeroDataRetention: true, maxConcurrency: 1 })
      ).body;
      await second;
      const running = (await call(keys.asks, `/v2/batch/scrape/${id}`)).body;
      assert.deepEqual(
        [running.status, running.completed, running.data, running.next],
        ['scraping', 1, [], undefined],
      );
      release();
      await finished(id);
      const first = (await call(keys.asks, `/v2/batch/scrape/${id}?limit=1`)).body;
      assert.equal(first.data.length, 1);
      assert.equal(first.completed, 2);
      // What was handed over is gone: the rest starts at the first again, so `next` has no skip.
      const next = new URL(first.next!);
      assert.equal(next.search, '?limit=1');
      const rest = (await call(keys.asks, `${next.pathname}${next.search}`)).body;
      assert.equal(rest.data.length, 1);
      assert.equal(rest.next, undefined);
      assert.deepEqual(
        [...first.data, ...rest.data].map((d) => new URL(d.metadata.sourceURL).pathname).sort(),
        ['/docs/tides', '/held/boats'],
      );
      const again = (await call(keys.asks, `/v2/batch/scrape/${id}`)).body;
      assert.deepEqual(
        [again.status, again.completed, again.creditsUsed, again.data],
        ['completed', 2, 2, []],
      );
      // Neither page was kept in the scrape cache, which a batch otherwise fills.
      const scrape = await call(keys.asks, '/v2/scrape', { url: urls[0], maxAge: 3_600_000 });
      assert.equal(
        (scrape.body as unknown as { data: { metadata: { cacheState: string } } }).data.metadata.cacheState,
        'miss',
      );
      const mixed = await call(keys.asks, '/v2/batch/scrape', { urls, appendToId: id });
      assert.equal(mixed.status, 400);
      assert.match(mixed.body.error, /body\.zeroDataRetention: the batch .* runs under zero data retention/);

      // A team whose policy forces it gets it without asking.
      const forced = (
        await call(keys.forced, '/v2/crawl', { url: `${site.url}/docs/boats/moorings`, sitemap: 'skip' })
      ).body;
      await finished(forced.id);
      assert.equal((await call(keys.forced, `/v2/crawl/${forced.id}`)).body.data.length, 1);
      assert.deepEqual((await call(keys.forced, `/v2/crawl/${forced.id}`)).body.data, []);
    } finally {
      await store.close();
    }
  });

  it('refuses bad requests with the field named, and unknown jobs with 404', async () => {
    const unknown = await post('/v2/crawl', { url: `${site.url}/`, maxDepth: 2 });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as { error: string }).error, /maxDepth/);
    const regex = await post('/v2/crawl', { url: `${site.url}/`, includePaths: ['(unclosed'] });
    assert.equal(regex.status, 400);
    assert.match(((await regex.json()) as { error: string }).error, /includePaths\[0\]/);
    // A pattern that backtracks exponentially would hold the server on a URL the site picks.
    const nested = await post('/v2/crawl', { url: `${site.url}/`, excludePaths: ['^/(a+)+$'] });
    assert.equal(nested.status, 400);
    assert.match(((await nested.json()) as { error: string }).error, /excludePaths\[0\] nests repeats/);
    const scrapeOption = await post('/v2/crawl', {
      url: `${site.url}/`,
      scrapeOptions: { formats: ['nonsense'] },
    });
    assert.equal(scrapeOption.status, 400);
    assert.match(((await scrapeOption.json()) as { error: string }).error, /scrapeOptions\.formats/);
    const negative = await post('/v2/crawl', { url: `${site.url}/`, limit: -5 });
    assert.match(
      ((await negative.json()) as { error: string }).error,
      /body\.limit must be an integer from 1 to/,
    );
    const missing = await get('/v2/crawl/0190a6f0-0000-7000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), { success: false, error: 'Job not found' });
    const malformed = await get('/v2/crawl/nope');
    assert.equal(malformed.status, 400);
    const noUrls = await post('/v2/batch/scrape', { urls: ['not a url', 'ftp://files.example/x'] });
    assert.equal(noUrls.status, 400);
  });
});

describe('a crawl of documents, redirects, failures and URL variants', () => {
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info' });
  const lib = new Site();
  before(async () => {
    await lib.listen();
    lib.page(
      '/lib/',
      `${text('Library')}<a href="/lib/guide.pdf">Guide</a> <a href="/lib/notes.docx">Notes</a> <a href="/lib/old">Old</a>
       <a href="/lib/gone">Gone</a> <a href="/lib/broken">Broken</a> <a href="/lib/list?page=1">List</a>
       <a href="/lib/list?page=1&amp;utm_source=feed">List again</a> <a href="http://other.example/lib/">Elsewhere</a>
       <a href="/lib/list-print">Printable list</a> <a href="/lib/alias">Alias</a> <a href="/lib/app">App</a>`,
    );
    // A page whose content only its scripts write: the crawl renders it as a scrape would.
    lib.page('/lib/app', appShell).serve('/api/text', 'text/plain', 'Fetched: the lock keepers’ rota.');
    lib.serve(
      '/lib/guide.pdf',
      'application/pdf',
      Buffer.from(pagesOf([pdfLine('Lock keeping, part one'), pdfLine('Lock keeping, part two')], pdfFont)),
    );
    lib.serve(
      '/lib/notes.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      wordPackage({ body: para(run('Notes on mooring in strong currents')) }),
    );
    lib.redirect('/lib/old', '/lib/older', 301).redirect('/lib/older', '/lib/new', 302);
    lib.page('/lib/new', text('New'));
    // Copies that name their canonical page: one whose canonical the crawl holds, one whose it does not yet.
    lib.page('/lib/list-print', text('List'), '<link rel="canonical" href="/lib/list?page=1">');
    lib.page(
      '/lib/alias',
      `${text('Real')}<a href="/lib/real">Real</a>`,
      '<link rel="canonical" href="/lib/real">',
    );
    lib.page('/lib/real', text('Real'));
    lib.on('/lib/broken', (_req, res) =>
      res.writeHead(500, { 'content-type': 'text/html' }).end('<p>down</p>'),
    );
    lib.page('/lib/list', text('List'));
  });
  after(() => lib.close());

  // A browser starts for the page that needs one: slow on a loaded machine.
  it('parses documents as uploads, renders a page that needs JavaScript, follows redirect chains, keeps failures as pages, one document per page and canonical copy', {
    timeout: 280_000,
  }, async () => {
    const headers = { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' };
    const start = await app().fetch('/v2/crawl', {
      method: 'POST',
      headers,
      // Each page's timeout with room for a loaded machine, where the rendered page's browser
      // starts at nice 10 beside everything else (a loaded run lost it at the default 30 s).
      body: JSON.stringify({ url: `${lib.url}/lib/`, sitemap: 'skip', scrapeOptions: { timeout: 120_000 } }),
    });
    const { id } = (await start.json()) as { id: string };
    await app().waitForOutput(new RegExp(`"job":"${id}","status":"completed","msg":"job finished"`));
    const status = (await (await app().fetch(`/v2/crawl/${id}`, { headers })).json()) as Status;
    const byPath = new Map(status.data.map((d) => [new URL(d.metadata.sourceURL).pathname, d]));
    assert.deepEqual([...byPath.keys()].sort(), [
      '/lib/',
      '/lib/alias',
      '/lib/app',
      '/lib/broken',
      '/lib/gone',
      '/lib/guide.pdf',
      '/lib/list',
      '/lib/notes.docx',
      '/lib/old',
    ]);
    assert.match(byPath.get('/lib/guide.pdf')?.markdown ?? '', /Lock keeping, part one[\s\S]*part two/);
    assert.match(byPath.get('/lib/notes.docx')?.markdown ?? '', /Notes on mooring in strong currents/);
    assert.match(
      byPath.get('/lib/app')?.markdown ?? '',
      /# Rendered harbour[\s\S]*Fetched: the lock keepers’ rota/,
    );
    // A redirect chain is one page, at its end.
    const moved = byPath.get('/lib/old')!;
    assert.equal((moved.metadata as { url?: string }).url, `${lib.url}/lib/new`);
    assert.match(moved.markdown ?? '', /# New/);
    assert.equal(byPath.get('/lib/gone')?.metadata.statusCode, 404);
    assert.equal(byPath.get('/lib/broken')?.metadata.statusCode, 500);
    assert.equal(lib.hits.get('/lib/list'), 1);
    // A canonical copy is fetched, then left out; a canonical page another stands for is never fetched.
    assert.equal(lib.hits.get('/lib/list-print'), 1);
    assert.equal(lib.hits.get('/lib/real'), undefined);
    // Each page costs what a scrape of it costs: the PDF its pages too.
    const pdfCost = (byPath.get('/lib/guide.pdf')!.metadata as { creditsUsed?: number }).creditsUsed!;
    assert.equal(status.creditsUsed, status.data.length - 1 + pdfCost);
  });
});

describe('map of a refused address', () => {
  const app = useApp();
  it('answers 403 for a private start address, with the process still serving', async () => {
    const res = await app().fetch('/v2/map', {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/' }),
    });
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as { error: string }).error, /127\.0\.0\.1/);
    const health = await app().fetch('/health');
    assert.equal(health.status, 200);
  });
});
