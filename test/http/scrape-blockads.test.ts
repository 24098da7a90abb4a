import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { useApp } from '../helpers/app.ts';
import { adPage, adText, tinyPng } from '../helpers/scrape-pages.ts';
import { Site } from '../helpers/site.ts';

// `blockAds` with the lists of Debian's webext-ublock-origin-chromium (taken out of the package by
// scripts/fetch-filter-lists.sh, which npm test runs). The origin listens on 127.0.0.2, not 127.0.0.1: EasyList
// turns its generic hiding rules off on 127.0.0.1 and localhost (`@@://127.0.0.1$generichide`),
// for developers' own pages. Without the lists: test/http/scrape-consent.test.ts.

const listsDir = loadConfig({}).QUIRE_FILTER_LISTS_DIR;
/** The EasyList rules the page is built to trip: a generic hiding rule and a network rule. */
const hidingRule = '##.banner-ad';
const networkRule = '/banner-ad.$~script,~xmlhttprequest';

describe('POST /v2/scrape with blockAds', () => {
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.2' });
  const origin = new Site()
    .serve('/page', 'text/html; charset=utf-8', adPage)
    .serve('/banner-ad.gif', 'image/png', tinyPng)
    .serve('/harbour-map.png', 'image/png', tinyPng);

  before(async () => {
    // Loudly, if a Debian update drops either rule: the assertions below would prove nothing.
    const easylist = fs.readFileSync(path.join(listsDir, 'thirdparties/easylist/easylist.txt'), 'utf8');
    const lines = new Set(easylist.split('\n').map((l) => l.trim()));
    assert.ok(lines.has(hidingRule), `${hidingRule} is no longer in easylist.txt`);
    assert.ok(lines.has(networkRule), `${networkRule} is no longer in easylist.txt`);
    await origin.listen('127.0.0.2');
  });
  after(() => origin.close());

  async function scrape(body: object): Promise<Record<string, any>> {
    const res = await app().fetch('/v2/scrape', {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      // The whole page, so that only blockAds decides what goes (not main-content extraction).
      body: JSON.stringify({ url: `${origin.url}/page`, onlyMainContent: false, timeout: 120_000, ...body }),
    });
    const answer = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(answer));
    return answer.data;
  }

  it('leaves a page fetched without a browser as it came, whose images are never requested', async () => {
    const fetched = await scrape({});
    assert.match(fetched.markdown, /harmonic constituents/);
    assert.match(fetched.markdown, new RegExp(adText));
    assert.match(fetched.markdown, /banner-ad\.gif/);
    assert.equal(origin.hits.get('/banner-ad.gif'), undefined);
  });

  it('in a rendered page, blocks the ad request before it leaves the browser and removes the ad element', {
    timeout: 150_000,
  }, async () => {
    // waitFor makes it render.
    const blocked = await scrape({ waitFor: 100 });
    assert.match(blocked.markdown, /harmonic constituents/);
    assert.doesNotMatch(blocked.markdown, new RegExp(adText));
    assert.doesNotMatch(blocked.markdown, /banner-ad\.gif/);
    assert.equal(origin.hits.get('/banner-ad.gif'), undefined, 'the ad image never reached the origin');
    assert.equal(origin.hits.get('/harbour-map.png'), 1, 'other images load');

    const kept = await scrape({ waitFor: 100, blockAds: false });
    assert.match(kept.markdown, new RegExp(adText));
    assert.equal(origin.hits.get('/banner-ad.gif'), 1);
  });
});
