import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer, useServer } from '../helpers/server.ts';

// `blockAds` with the lists of Debian's webext-ublock-origin-chromium (taken out of the package by
// scripts/fetch-filter-lists.sh, which npm test runs). The origin listens on 127.0.0.2, not 127.0.0.1: EasyList
// turns its generic hiding rules off on 127.0.0.1 and localhost (`@@://127.0.0.1$generichide`),
// for developers' own pages.

const listsDir = loadConfig({}).QUIRE_FILTER_LISTS_DIR;
/** The EasyList rules the page below is built to trip: a generic hiding rule and a network rule. */
const hidingRule = '##.banner-ad';
const networkRule = '/banner-ad.$~script,~xmlhttprequest';

const prose =
  'Tide tables are computed from harmonic constituents, each a sine wave with its own period, amplitude and phase, fitted to years of readings at a gauge, then summed for the dates wanted.';
const adText = 'Huge discount on harbour cruises';

const page = `<!doctype html><html><head><title>Harbour</title></head><body>
<h1>How tides are predicted</h1><p>${prose}</p>
<div class="banner-ad">${adText}</div>
<p><img src="/banner-ad.gif" alt="Sponsored"></p>
<p><img src="/harbour-map.png" alt="Harbour map"></p>
</body></html>`;

const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

describe('POST /v2/scrape with blockAds', () => {
  const server = useServer({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.2' });
  const hits = new Map<string, number>();
  let origin: http.Server;
  let base = '';

  before(async () => {
    // Loudly, if a Debian update drops either rule: the assertions below would prove nothing.
    const easylist = fs.readFileSync(path.join(listsDir, 'thirdparties/easylist/easylist.txt'), 'utf8');
    const lines = new Set(easylist.split('\n').map((l) => l.trim()));
    assert.ok(lines.has(hidingRule), `${hidingRule} is no longer in easylist.txt`);
    assert.ok(lines.has(networkRule), `${networkRule} is no longer in easylist.txt`);

    origin = http.createServer((req, res) => {
      const route = (req.url ?? '/').split('?')[0]!;
      hits.set(route, (hits.get(route) ?? 0) + 1);
      if (route === '/page') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      else if (route.endsWith('.gif') || route.endsWith('.png'))
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.2', resolve));
    base = `http://127.0.0.2:${(origin.address() as AddressInfo).port}`;
  });
  after(async () => {
    origin.closeAllConnections();
    await new Promise((resolve) => origin.close(resolve));
  });

  async function scrape(on: RunningServer, body: object): Promise<Record<string, any>> {
    const res = await fetch(`${on.url}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${on.key}`, 'content-type': 'application/json' },
      // The whole page, so that only blockAds decides what goes (not main-content extraction).
      body: JSON.stringify({ url: `${base}/page`, onlyMainContent: false, timeout: 120_000, ...body }),
    });
    const answer = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(answer));
    return answer.data;
  }

  it('leaves a page fetched without a browser as it came, whose images are never requested', async () => {
    const fetched = await scrape(server(), {});
    assert.match(fetched.markdown, /harmonic constituents/);
    assert.match(fetched.markdown, new RegExp(adText));
    assert.match(fetched.markdown, /banner-ad\.gif/);
    assert.equal(hits.get('/banner-ad.gif'), undefined);
  });

  it('in a rendered page, blocks the ad request before it leaves the browser and removes the ad element', {
    timeout: 150_000,
  }, async () => {
    // waitFor makes it render.
    const blocked = await scrape(server(), { waitFor: 100 });
    assert.match(blocked.markdown, /harmonic constituents/);
    assert.doesNotMatch(blocked.markdown, new RegExp(adText));
    assert.doesNotMatch(blocked.markdown, /banner-ad\.gif/);
    assert.equal(hits.get('/banner-ad.gif'), undefined, 'the ad image never reached the origin');
    assert.equal(hits.get('/harbour-map.png'), 1, 'other images load');

    const kept = await scrape(server(), { waitFor: 100, blockAds: false });
    assert.match(kept.markdown, new RegExp(adText));
    assert.equal(hits.get('/banner-ad.gif'), 1);
  });

  it('without the lists, rendered scrapes still work, unfiltered, and say so once in the log', {
    timeout: 150_000,
  }, async () => {
    const bare = await startServer({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.2', QUIRE_FILTER_LISTS_DIR: '' });
    try {
      for (const maxAge of [0, 0]) {
        const data = await scrape(bare, { maxAge, waitFor: 100 });
        assert.match(data.markdown, new RegExp(adText));
      }
      const warnings = bare.output().match(/no ad filter lists/g) ?? [];
      assert.equal(warnings.length, 1, bare.output());
    } finally {
      await bare.stop();
    }
  });
});
