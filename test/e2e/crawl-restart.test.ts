import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { embeddedOnly } from '../helpers/mode.ts';
import { startServer } from '../helpers/server.ts';
import { Site } from '../helpers/site.ts';

/**
 * An embedded server killed mid-crawl resumes the crawl when it starts again on the same data
 * folder: the pages it had finished are not fetched again, the page it was fetching is, and the
 * crawl completes with every page once.
 */
describe(
  'an embedded restart mid-crawl',
  embeddedOnly("one process owns the SQLite file; a cluster hands a dead process's job to another"),
  () => {
    const site = new Site();
    let hold = true;
    const waiting: (() => void)[] = [];
    before(async () => {
      await site.listen();
      const words = (n: number) =>
        `<h1>Chapter ${n}</h1><p>Chapter ${n} of the canal atlas, with its locks, basins and towpaths described.</p>`;
      // A chain of chapters: one page at a time, so the crawl's progress is known when it is killed.
      for (let n = 1; n <= 6; n++) {
        const next = n < 6 ? `<a href="/atlas/${n + 1}">next</a>` : '';
        if (n === 4)
          site.on(`/atlas/${n}`, (_req, res) => {
            const answer = () =>
              res.writeHead(200, { 'content-type': 'text/html' }).end(`${words(n)}${next}`);
            if (hold) waiting.push(answer);
            else answer();
          });
        else site.page(`/atlas/${n}`, `${words(n)}${next}`);
      }
    });
    after(() => site.close());

    it('takes the crawl up where it stopped, fetching no finished page twice', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-crawl-restart-'));
      const env = {
        QUIRE_DATA_DIR: dataDir,
        QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
        QUIRE_LOG_LEVEL: 'info',
      };
      const first = await startServer(env);
      const headers = { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' };
      const started = await first.fetch('/v2/crawl', {
        method: 'POST',
        headers,
        body: JSON.stringify({
          url: `${site.url}/atlas/1`,
          sitemap: 'skip',
          crawlEntireDomain: true,
          maxConcurrency: 1,
        }),
      });
      const { id } = (await started.json()) as { id: string };
      // Chapter 4 is being fetched: chapters 1-3 are done.
      while (waiting.length === 0) await new Promise((resolve) => site.server.once('request', resolve));
      await first.stop('SIGKILL');
      hold = false;
      for (const answer of waiting.splice(0)) answer();
      const second = await startServer(env);
      try {
        await second.waitForOutput(new RegExp(`"job":"${id}","status":"completed","msg":"job finished"`));
        const status = await second.fetch(`/v2/crawl/${id}`, {
          headers: { authorization: `Bearer ${second.key}` },
        });
        const body = (await status.json()) as { status: string; data: { metadata: { sourceURL: string } }[] };
        assert.equal(body.status, 'completed');
        assert.deepEqual(body.data.map((d) => new URL(d.metadata.sourceURL).pathname).sort(), [
          '/atlas/1',
          '/atlas/2',
          '/atlas/3',
          '/atlas/4',
          '/atlas/5',
          '/atlas/6',
        ]);
        for (const n of [1, 2, 3, 5, 6])
          assert.equal(site.hits.get(`/atlas/${n}`), 1, `chapter ${n} fetched once`);
        assert.equal(
          site.hits.get('/atlas/4'),
          2,
          'the page in flight when the server died is fetched again',
        );
      } finally {
        await second.stop();
      }
    });
  },
);
