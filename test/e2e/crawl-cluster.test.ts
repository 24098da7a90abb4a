import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { firstPassOnly } from '../helpers/mode.ts';
import { corpusFile, type RunningCluster, type RunningServer, startCluster } from '../helpers/server.ts';
import { Site } from '../helpers/site.ts';

/**
 * A crawl on a cluster whose worker dies mid-page: the page's conversion is taken up by the other
 * worker once the dead one's claim lapses (the test ends the claim rather than waiting 15 s), and
 * the crawl completes with every page once, none fetched twice. Every wait is on a line the
 * processes print or a request the site sees.
 */

const logged = (msg: string, id = '[^"]+') => new RegExp(`"jobId":"(${id})"[^\\n]*"msg":"${msg}"`);

describe('a crawl on a cluster whose worker dies mid-page', {
  concurrency: 1,
  ...firstPassOnly('starts the cluster it tests itself'),
}, () => {
  const site = new Site();
  let cluster: RunningCluster;
  /** Where each worker's output ended when the site served the document: its conversion starts after. */
  let served: (marks: number[]) => void = () => {};
  const documentServed = new Promise<number[]>((resolve) => {
    served = resolve;
  });
  const receipt = corpusFile('pdf/scanned/scan-mid-receipt.pdf').bytes;
  const page = (title: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${title} is a page of the shop's records, long enough to be read as content.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;

  before(async () => {
    await site.listen();
    site.serve('/robots.txt', 'text/plain', 'User-agent: *\nAllow: /\n');
    site.serve('/', 'text/html', page('Records', ['/ledger', '/receipt.pdf', '/stock']));
    site.serve('/ledger', 'text/html', page('Ledger', []));
    site.serve('/stock', 'text/html', page('Stock', []));
    site.on('/receipt.pdf', (_req, res) => {
      served(cluster.workers.map((w) => w.output().length));
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(receipt);
    });
    cluster = await startCluster(
      {
        QUIRE_LOG_LEVEL: 'debug',
        QUIRE_WORKERS: '1',
        QUIRE_CLUSTER_STALLED_CHECK_MS: '250',
        QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
      },
      { workers: 2 },
    );
  });
  after(async () => {
    await cluster?.stop();
    await site.close();
  });

  it('retries the page on the other worker and completes with every page once', async () => {
    const { api } = cluster;
    const call = (method: string, at: string, body?: unknown) =>
      fetch(`${api.url}${at}`, {
        method,
        headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const finished = api.waitForOutput(/"status":"completed".*"msg":"job finished"/, api.output().length);
    // One page at a time, so the first conversion to start after the document was served is its.
    const started = await call('POST', '/v2/crawl', {
      url: `${site.url}/`,
      maxConcurrency: 1,
      sitemap: 'skip',
      scrapeOptions: { formats: ['markdown'], timeout: 120_000 },
    });
    assert.equal(started.status, 200, await started.clone().text());
    const { id } = (await started.json()) as { id: string };

    const from = await documentServed;
    const victimLine = await Promise.any(
      cluster.workers.map((w, i) => w.waitForOutput(logged('conversion started'), from[i])),
    );
    const conversion = victimLine[1]!;
    const victim = cluster.workers.find((w) => logged('conversion started', conversion).test(w.output()))!;
    const survivor = cluster.workers.find((w) => w !== victim) as RunningServer;
    await victim.stop('SIGKILL');
    const retried = survivor.waitForOutput(logged('conversion started', conversion));
    assert.equal(await cluster.lapseClaim(conversion), true, 'the dead worker held a claim');
    await retried;
    await finished;

    const status = (await (await call('GET', `/v2/crawl/${id}`)).json()) as {
      status: string;
      completed: number;
      total: number;
      data: { markdown: string; metadata: { sourceURL: string } }[];
    };
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.data.map((d) => new URL(d.metadata.sourceURL).pathname).sort(), [
      '/',
      '/ledger',
      '/receipt.pdf',
      '/stock',
    ]);
    const document = status.data.find((d) => d.metadata.sourceURL.endsWith('/receipt.pdf'))!;
    assert.match(document.markdown, /TECHMART ELECTRONICS/);
    const errors = (await (await call('GET', `/v2/crawl/${id}/errors`)).json()) as { errors: unknown[] };
    assert.deepEqual(errors.errors, []);
    // The dead worker's page was converted again from the bytes the API process kept: nothing was fetched twice.
    for (const path of ['/', '/ledger', '/receipt.pdf', '/stock']) assert.equal(site.hits.get(path), 1, path);
  });
});
