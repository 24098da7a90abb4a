import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { validateScrapeBody } from '../../src/options/scrape-options.ts';
import { cachePlan, ScrapeCache } from '../../src/scrape/scrape-cache.ts';
import type { Store } from '../../src/store/store.ts';
import { bothStores } from '../helpers/store.ts';

/**
 * The scrape cache's keys and lifetimes (README, Scrape, "Cache"), on a clock the test moves and
 * on both stores: maxAge (two days by default), screenshot answers served for 23 hours, every
 * entry gone after 7 days, the sweep every 10 minutes. Hits and misses of real scrapes, and the
 * size cap, are test/e2e/scrape-cache.test.ts's.
 */

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const context = { model: undefined, captureBase: 'http://quire.test', adLists: 'lists-a' };
const plan = (body: object) =>
  cachePlan('team', validateScrapeBody({ url: 'http://example.com/', ...body }), false, context)!;

const stores = bothStores;

/** A cache on `store` whose clock starts now and moves only with `clock.now`. */
function cacheOn(store: Store, capBytes = 2 ** 20) {
  const start = Date.now();
  const clock = { start, now: start };
  const cache = new ScrapeCache(
    store,
    capBytes,
    () => {},
    () => clock.now,
  );
  /** Whether `key`'s entry answers a scrape asking for `maxAge`, `ms` after it was stored. */
  const hitAfter = async (ms: number, key: ReturnType<typeof plan>) => {
    clock.now = clock.start + ms;
    return (await cache.get(key, 'http://example.com/')) !== undefined;
  };
  return { cache, clock, hitAfter };
}

/** A scrape's answer as the route stores it. */
const answer = (metadata: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      success: true,
      data: {
        markdown: '# Tides',
        metadata: { sourceURL: 'http://example.com/', creditsUsed: 1, ...metadata },
      },
    }),
  );

describe('scrape cache keys', () => {
  it('leaves the cache alone with actions, headers or zero data retention, as upstream', () => {
    const zdr = cachePlan('team', validateScrapeBody({ url: 'http://example.com/' }), true, context);
    assert.ok(plan({}));
    assert.equal(plan({ actions: [{ type: 'wait', milliseconds: 10 }] }), undefined);
    assert.equal(plan({ headers: { Cookie: 'session=1' } }), undefined);
    assert.equal(zdr, undefined);
    assert.equal(plan({ maxAge: 0, storeInCache: false }), undefined);
    // Written-out defaults share an entry with their absence.
    assert.equal(plan({ waitFor: 0, mobile: false, actions: [], headers: {} }).key, plan({}).key);
    assert.notEqual(plan({ waitFor: 10 }).key, plan({}).key);
    assert.notEqual(plan({ skipTlsVerification: false }).key, plan({}).key);
    // Ad blocking shapes the answer, and so do the lists it applies.
    assert.equal(plan({ blockAds: true }).key, plan({}).key);
    assert.notEqual(plan({ blockAds: false }).key, plan({}).key);
    const otherLists = cachePlan('team', validateScrapeBody({ url: 'http://example.com/' }), false, {
      ...context,
      adLists: 'lists-b',
    });
    assert.notEqual(otherLists!.key, plan({}).key);
  });
});

for (const { name, open } of stores) {
  describe(`scrape cache lifetimes (${name})`, () => {
    it('answers a hit as this request’s, with when it was stored', async () => {
      const { store, close } = await open();
      const { cache, clock } = cacheOn(store);
      try {
        const page = plan({});
        assert.equal(await cache.put(page, answer({ concurrencyQueueDurationMs: 12 }), false), true);
        clock.now += 5 * minute;
        const hit = await cache.get(page, 'HTTP://example.com/./');
        assert.ok(hit);
        assert.equal(hit.creditsUsed, 1);
        const { metadata } = JSON.parse(hit.body.toString()).data;
        const { scrapeId, ...rest } = metadata;
        assert.match(scrapeId, /^[0-9a-f-]{36}$/);
        assert.deepEqual(rest, {
          sourceURL: 'HTTP://example.com/./',
          creditsUsed: 1,
          concurrencyLimited: false,
          cacheState: 'hit',
          cachedAt: new Date(clock.start).toISOString(),
        });
        const again = JSON.parse((await cache.get(page, 'http://example.com/'))!.body.toString());
        assert.notEqual(again.data.metadata.scrapeId, scrapeId);
      } finally {
        cache.close();
        await close();
      }
    });

    it('serves an entry no older than maxAge: two days by default, never with maxAge 0', async () => {
      const { store, close } = await open();
      const { cache, hitAfter } = cacheOn(store);
      try {
        const byDefault = plan({});
        await cache.put(byDefault, answer(), false);
        assert.equal(await hitAfter(2 * day - 1000, byDefault), true);
        assert.equal(await hitAfter(2 * day + 1000, byDefault), false);
        const minuteOld = plan({ maxAge: minute });
        assert.equal(minuteOld.key, byDefault.key, 'maxAge does not split the cache');
        assert.equal(await hitAfter(minute, minuteOld), true);
        assert.equal(await hitAfter(minute + 1, minuteOld), false);
        assert.equal(await hitAfter(0, plan({ maxAge: 0 })), false);
      } finally {
        cache.close();
        await close();
      }
    });

    it('serves an answer holding screenshot URLs for 23 hours, others for 7 days whatever maxAge asks', async () => {
      const { store, close } = await open();
      const { cache, hitAfter } = cacheOn(store);
      try {
        const month = 30 * day;
        const shot = plan({ formats: ['screenshot'], maxAge: month });
        const page = plan({ maxAge: month });
        assert.notEqual(shot.key, page.key);
        await cache.put(shot, answer(), true);
        await cache.put(page, answer(), false);
        assert.equal(await hitAfter(23 * hour - 1000, shot), true);
        assert.equal(await hitAfter(23 * hour, shot), false);
        assert.equal(await hitAfter(7 * day - 1000, page), true);
        assert.equal(await hitAfter(7 * day, page), false);
      } finally {
        cache.close();
        await close();
      }
    });

    it('sweeps the entries past their end every 10 minutes', async (t) => {
      t.mock.timers.enable({ apis: ['setInterval'] });
      const { store, close } = await open();
      const swept: string[] = [];
      let sweep = Promise.withResolvers<void>();
      const watched: Store = Object.create(store, {
        purgeScrapeCache: {
          value: async (now: string) => {
            const gone = await store.purgeScrapeCache(now);
            swept.push(`${now} ${gone}`);
            sweep.resolve();
            return gone;
          },
        },
      });
      const { cache, clock } = cacheOn(watched);
      try {
        await cache.put(plan({ formats: ['screenshot'] }), answer(), true);
        await cache.put(plan({}), answer(), false);
        // Each write sweeps too (on the store's own clock): only the interval's sweeps count here.
        swept.length = 0;
        sweep = Promise.withResolvers();
        clock.now = clock.start + 23 * hour;
        t.mock.timers.tick(10 * minute - 1);
        assert.deepEqual(swept, []);
        t.mock.timers.tick(1);
        await sweep.promise;
        sweep = Promise.withResolvers();
        clock.now = clock.start + 7 * day;
        t.mock.timers.tick(10 * minute);
        await sweep.promise;
        assert.deepEqual(swept, [
          `${new Date(clock.start + 23 * hour).toISOString()} 1`,
          `${new Date(clock.start + 7 * day).toISOString()} 1`,
        ]);
      } finally {
        cache.close();
        await close();
      }
    });

    it('keeps no answer over half its size cap, and nothing at all with a cap of 0', async () => {
      const { store, close } = await open();
      try {
        // Random bytes do not compress: about 3 KB however brotli tries.
        const big = Buffer.from(
          JSON.stringify({
            success: true,
            data: { metadata: {}, noise: randomBytes(2048).toString('base64') },
          }),
        );
        const small = cacheOn(store, 4096).cache;
        assert.equal(await small.put(plan({}), big, false), false);
        assert.equal(await small.get(plan({}), 'http://example.com/'), undefined);
        assert.equal(await small.put(plan({ storeInCache: false }), answer(), false), false);
        const off = cacheOn(store, 0).cache;
        assert.equal(off.enabled, false);
        assert.equal(await off.put(plan({}), answer(), false), false);
        assert.equal(await small.put(plan({}), answer(), false), true);
        assert.equal(await off.get(plan({}), 'http://example.com/'), undefined);
        small.close();
        off.close();
      } finally {
        await close();
      }
    });
  });
}
