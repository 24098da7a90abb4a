import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { PythonSdkClient } from '../helpers/python-client.ts';
import { type RunningServer, startServer } from '../helpers/server.ts';
import { Site } from '../helpers/site.ts';

/**
 * Crawl, map and batch scrape through the SDKs, over a real server: the JS SDK unchanged, and
 * requests shaped as the Python SDK sends them (it cannot be installed here: no PyPI). In the
 * cluster pass a job is driven by the api process and its pages converted by the worker. The
 * contract's details are tested in-process (test/http/crawl.test.ts).
 */

const words = (name: string) =>
  `<h1>${name}</h1><p>${name} belongs to the river guide, which describes the locks, the bridges and the moorings along its banks.</p>`;

describe('crawl, map and batch scrape through the SDKs', () => {
  const site = new Site();
  let server: RunningServer;
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  before(async () => {
    await site.listen();
    site.serve('/robots.txt', 'text/plain', 'User-agent: *\nDisallow: /guide/staff\n');
    site.page(
      '/guide/',
      `${words('Guide')}<a href="/guide/locks">Locks</a> <a href="/guide/bridges">Bridges</a> <a href="/guide/staff">Staff</a>`,
    );
    site.page('/guide/locks', `${words('Locks')}<a href="/guide/locks/upper">Upper lock</a>`);
    site.page('/guide/locks/upper', words('Upper lock'));
    site.page('/guide/bridges', words('Bridges'));
    site.page('/guide/staff', words('Staff'));
    site.page('/guide/facts', '<h1>Facts</h1><p>River: Aulne</p><p>Length: 144</p>');
    site.page('/guide/more-facts', '<h1>More facts</h1><p>River: Aulne</p><p>Source: Monts d’Arrée</p>');
    site.on('/held/', (_req, res) => {
      void held.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(words('Held')));
    });
    // Info: the line a monitor's check prints as it finishes.
    server = await startServer({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info' });
  });
  after(async () => {
    release();
    await server?.stop();
    await site.close();
  });

  it("crawls with the JS SDK's crawl(), then pages the status and reads the errors", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const job = await client.crawl(`${site.url}/guide/`, { limit: 10, pollInterval: 1, timeout: 120 });
    assert.equal(job.status, 'completed');
    const paths = job.data.map((d) => new URL(d.metadata?.sourceURL ?? '').pathname).sort();
    assert.deepEqual(paths, ['/guide/', '/guide/bridges', '/guide/locks', '/guide/locks/upper']);
    assert.match(
      job.data.find((d) => d.metadata?.sourceURL?.endsWith('/upper'))?.markdown ?? '',
      /# Upper lock/,
    );
    assert.equal(job.completed, 4);
    assert.equal(job.creditsUsed, 4);
    const id = job.id;
    const firstPage = await client.getCrawlStatus(id, { autoPaginate: false });
    assert.equal(firstPage.data.length, 4);
    assert.equal(firstPage.next, null);
    const errors = await client.getCrawlErrors(id);
    assert.deepEqual(errors.errors, []);
    assert.deepEqual(errors.robotsBlocked, [`${site.url}/guide/staff`]);
  });

  it('cancels a running crawl and lists it as active until then', async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const started = await client.startCrawl(`${site.url}/held/`, { sitemap: 'skip' });
    const active = await client.getActiveCrawls();
    assert.ok(active.crawls.some((c) => c.id === started.id && c.url === `${site.url}/held/`));
    assert.equal(await client.cancelCrawl(started.id), true);
    const status = await client.getCrawlStatus(started.id);
    assert.equal(status.status, 'cancelled');
    release();
  });

  it("maps a site with the JS SDK's map(), ranked by search", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const map = await client.map(`${site.url}/guide/`, { search: 'bridges' });
    const urls = map.links.map((l) => (typeof l === 'string' ? l : l.url));
    assert.equal(new URL(urls[0]!).pathname, '/guide/bridges');
    assert.ok(urls.some((u) => u.endsWith('/guide/locks')));
  });

  it("batch scrapes with the JS SDK's batchScrape(), invalid URLs reported", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const started = await client.startBatchScrape([`${site.url}/guide/locks`, 'not a url'], {
      options: { formats: ['markdown'] },
    });
    assert.deepEqual(started.invalidURLs, ['not a url']);
    const job = await client.batchScrape([`${site.url}/guide/locks`, `${site.url}/guide/bridges`], {
      options: { formats: ['markdown'] },
      pollInterval: 1,
      timeout: 120,
    });
    assert.equal(job.status, 'completed');
    assert.deepEqual(job.data.map((d) => d.markdown?.split('\n')[0]).sort(), ['# Bridges', '# Locks']);
    assert.deepEqual((await client.getBatchScrapeErrors(job.id)).errors, []);
    // Under zero data retention the SDK gets each document once, and then the job holds none.
    const kept = await client.batchScrape([`${site.url}/guide/locks`], {
      options: { formats: ['markdown'] },
      zeroDataRetention: true,
      pollInterval: 1,
      timeout: 120,
    });
    assert.equal(kept.status, 'completed');
    assert.deepEqual(
      [
        ...kept.data.map((d) => d.markdown?.split('\n')[0]),
        ...(await client.getBatchScrapeStatus(kept.id)).data,
      ],
      ['# Locks'],
    );
  });

  it("extracts with the JS SDK's extract(): a schema filled from two pages offline, with sources", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const result = await client.extract({
      urls: [`${site.url}/guide/facts`, `${site.url}/guide/more-facts`],
      schema: {
        type: 'object',
        properties: { river: { type: 'string' }, length: { type: 'integer' }, source: { type: 'string' } },
      },
      showSources: true,
      pollInterval: 1,
      timeout: 120,
    });
    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.deepEqual(result.data, { river: 'Aulne', length: 144, source: 'Monts d’Arrée' });
    assert.deepEqual(result.sources?.source, [`${site.url}/guide/more-facts`]);
    assert.equal(result.creditsUsed, 2);
    const started = await client.startExtract({ urls: [`${site.url}/guide/facts`], prompt: 'River length' });
    assert.ok(started.id);
    const status = await client.getExtractStatus(started.id);
    assert.ok(['processing', 'completed'].includes(status.status ?? ''), JSON.stringify(status));
  });

  it('monitors a page with the JS SDK: create, run, checks, update, list, delete', async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const monitor = await client.createMonitor({
      name: 'River facts',
      schedule: { text: 'monthly on the 1st at noon', timezone: 'UTC' },
      targets: [{ type: 'scrape', urls: [`${site.url}/guide/facts`] }],
    });
    assert.equal(monitor.schedule.cron, '0 12 1 * *');
    assert.equal(monitor.status, 'active');
    const finished = server.waitForOutput(/"msg":"monitor check finished"/, server.output().length);
    const check = await client.runMonitor(monitor.id);
    assert.equal(check.trigger, 'manual');
    await finished;
    const checks = await client.listMonitorChecks(monitor.id);
    assert.deepEqual(
      checks.map((c) => c.id),
      [check.id],
    );
    assert.equal(checks[0]!.status, 'completed');
    const detail = await client.getMonitorCheck(monitor.id, check.id);
    assert.deepEqual(detail.summary, { totalPages: 1, same: 0, changed: 0, new: 1, removed: 0, error: 0 });
    assert.deepEqual(
      detail.pages.map((p) => [p.url, p.status]),
      [[`${site.url}/guide/facts`, 'new']],
    );
    const paused = await client.updateMonitor(monitor.id, { status: 'paused' });
    assert.equal(paused.nextRunAt, null);
    assert.deepEqual(
      (await client.listMonitors()).map((m) => m.id),
      [monitor.id],
    );
    assert.equal((await client.getMonitor(monitor.id)).status, 'paused');
    assert.equal(await client.deleteMonitor(monitor.id), true);
    await assert.rejects(client.getMonitor(monitor.id), /Monitor not found/);
  });

  it("works through the Python SDK's request shape: start, status, errors, cancel, map, batch", async () => {
    const py = new PythonSdkClient(server.url, server.key);
    const start = await py.post('/v2/crawl', { url: `${site.url}/guide/`, limit: 2 });
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const id = (start.body as { id: string }).id;
    const status = await py.get(`/v2/crawl/${id}`);
    assert.equal(status.status, 200);
    assert.equal((status.body as { success: boolean }).success, true);
    const errors = await py.get(`/v2/crawl/${id}/errors`);
    assert.equal(errors.status, 200);
    const cancel = await py.delete(`/v2/crawl/${id}`);
    // Cancelled, or already finished (two pages can be done by now): never another answer.
    assert.ok(
      (cancel.status === 200 && (cancel.body as { status: string }).status === 'cancelled') ||
        cancel.status === 409,
      JSON.stringify(cancel.body),
    );
    const map = await py.post('/v2/map', { url: `${site.url}/guide/`, limit: 2 });
    assert.equal(map.status, 200);
    assert.equal((map.body as { links: unknown[] }).links.length, 2);
    const batch = await py.post('/v2/batch/scrape', {
      urls: [`${site.url}/guide/bridges`],
      formats: ['markdown'],
    });
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    const batchStatus = await py.get(`/v2/batch/scrape/${(batch.body as { id: string }).id}`);
    assert.equal(batchStatus.status, 200);
    const extract = await py.post('/v2/extract', {
      urls: [`${site.url}/guide/facts`],
      prompt: 'How long is the river?',
    });
    assert.equal(extract.status, 200, JSON.stringify(extract.body));
    const extractStatus = await py.get(`/v2/extract/${(extract.body as { id: string }).id}`);
    assert.equal(extractStatus.status, 200);
    assert.equal((extractStatus.body as { success: boolean }).success, true);
    const monitor = await py.post('/v2/monitor', {
      name: 'facts',
      schedule: { cron: '0 12 1 * *' },
      targets: [{ type: 'scrape', urls: [`${site.url}/guide/facts`] }],
    });
    assert.equal(monitor.status, 200, JSON.stringify(monitor.body));
    const monitorId = (monitor.body as { data: { id: string } }).data.id;
    assert.equal((await py.get(`/v2/monitor/${monitorId}/checks`)).status, 200);
    assert.equal((await py.delete(`/v2/monitor/${monitorId}`)).status, 200);
  });
});
