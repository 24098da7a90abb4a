import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleMap, type MapLink, type MapOptions } from '../../src/crawl/map-links.ts';

/**
 * POST /v2/map's answer assembled from what discovery found (jobs spec §5): normalising, domain,
 * subdomain and path filters, dedupe, ranking by `search`, the limit, and the seed always in.
 */

const defaults: MapOptions = {
  includeSubdomains: true,
  ignoreQueryParameters: true,
  limit: 5_000,
  filterByPath: true,
};
const map = (seed: string, found: (string | MapLink)[], options: Partial<MapOptions> = {}) =>
  assembleMap(
    seed,
    found.map((f) => (typeof f === 'string' ? { url: f } : f)),
    { ...defaults, ...options },
  );
const urls = (links: MapLink[]) => links.map((l) => l.url);
const site = 'https://fernhill.co.uk';

describe('assembleMap: normalising and filtering', () => {
  it('drops fragments, trailing slashes (not the root’s) and, by default, queries', () => {
    assert.deepEqual(
      urls(map(`${site}/`, [`${site}/a/#x`, `${site}/b?utm_source=x&page=2`, `${site}/c//`, 'not a url'])),
      [`${site}/`, `${site}/a`, `${site}/b`, `${site}/c`],
    );
    assert.deepEqual(urls(map(`${site}/`, [`${site}/b/?page=2#top`], { ignoreQueryParameters: false })), [
      `${site}/`,
      `${site}/b?page=2`,
    ]);
  });

  it('keeps the registrable domain, by the public-suffix list', () => {
    const found = [
      `${site}/a`,
      'https://shop.fernhill.co.uk/b',
      'https://oakfield.co.uk/c',
      'https://fernhill.example/d',
    ];
    assert.deepEqual(urls(map(`${site}/`, found)), [
      `${site}/`,
      `${site}/a`,
      'https://shop.fernhill.co.uk/b',
    ]);
  });

  it('keeps only the seed host, with or without www., without includeSubdomains', () => {
    const found = ['https://www.fernhill.co.uk/a', `${site}/b`, 'https://shop.fernhill.co.uk/c'];
    assert.deepEqual(urls(map(`${site}/`, found, { includeSubdomains: false })), [
      `${site}/`,
      'https://www.fernhill.co.uk/a',
      `${site}/b`,
    ]);
  });

  it('filters by whole path segments under a non-root seed, unless told not to or allowExternalLinks', () => {
    const found = [`${site}/docs/a`, `${site}/docs`, `${site}/docs-old/b`, `${site}/blog/c`];
    assert.deepEqual(urls(map(`${site}/docs/`, found)), [`${site}/docs`, `${site}/docs/a`]);
    // A seed naming its index page: the directory, and /docs is the same page as the seed.
    assert.deepEqual(urls(map(`${site}/docs/index.html`, found)), [
      `${site}/docs/index.html`,
      `${site}/docs/a`,
    ]);
    assert.equal(map(`${site}/docs/`, found, { filterByPath: false }).length, 4);
    assert.equal(map(`${site}/docs/`, found, { allowExternalLinks: true }).length, 4);
  });
});

describe('assembleMap: dedupe, limit and the seed', () => {
  it('dedupes spellings of one page, first position winning, taking a titled duplicate', () => {
    const result = map(`${site}/`, [
      `${site}/a`,
      `${site}/b`,
      { url: 'http://www.fernhill.co.uk/a/index.html', title: 'Page A', description: 'About A' },
      { url: `${site}/a`, title: 'Later title' },
      `${site}/index.html`,
    ]);
    assert.deepEqual(result, [
      { url: `${site}/` },
      { url: 'http://www.fernhill.co.uk/a/index.html', title: 'Page A', description: 'About A' },
      { url: `${site}/b` },
    ]);
  });

  it('puts the seed first and cuts to the limit', () => {
    const found = Array.from({ length: 10 }, (_, i) => `${site}/p/${i}`);
    assert.deepEqual(urls(map(`${site}/start`, found, { filterByPath: false, limit: 3 })), [
      `${site}/start`,
      `${site}/p/0`,
      `${site}/p/1`,
    ]);
    assert.deepEqual(urls(map(`${site}/`, [], {})), [`${site}/`]);
  });
});

describe('assembleMap: ranking by search', () => {
  it('ranks whole words in the path over parts of words, then title, then host; non-matches keep order after', () => {
    const found: MapLink[] = [
      { url: `${site}/about` },
      { url: `${site}/blog/pricing-history`, title: 'A history' },
      { url: `${site}/team` },
      { url: `${site}/pricing` },
      { url: `${site}/plans`, title: 'Pricing and plans' },
      { url: `${site}/repricing-notes` },
      { url: `${site}/contact` },
    ];
    assert.deepEqual(urls(map(`${site}/`, found, { search: 'Pricing' })), [
      `${site}/pricing`,
      `${site}/blog/pricing-history`,
      `${site}/plans`,
      `${site}/repricing-notes`,
      `${site}/`,
      `${site}/about`,
      `${site}/team`,
      `${site}/contact`,
    ]);
  });

  it('counts every query word, ignoring stopwords and case', () => {
    const found = [
      `${site}/api/reference`,
      `${site}/api/reference/auth`,
      `${site}/guides/auth`,
      `${site}/news`,
    ];
    assert.deepEqual(urls(map(`${site}/`, found, { search: 'the AUTH api' })), [
      `${site}/api/reference/auth`,
      `${site}/api/reference`,
      `${site}/guides/auth`,
      `${site}/`,
      `${site}/news`,
    ]);
  });

  it('keeps discovery order among equal scores (stable)', () => {
    const found = Array.from({ length: 6 }, (_, i) => `${site}/docs/page-${i}`);
    assert.deepEqual(urls(map(`${site}/`, found, { search: 'docs' })), [...found, `${site}/`]);
  });

  it('keeps the seed even when the ranking would cut it', () => {
    const found = Array.from({ length: 5 }, (_, i) => `${site}/tea/${i}`);
    assert.deepEqual(urls(map(`${site}/`, found, { search: 'tea', limit: 3 })), [
      `${site}/tea/0`,
      `${site}/tea/1`,
      `${site}/`,
    ]);
  });
});
