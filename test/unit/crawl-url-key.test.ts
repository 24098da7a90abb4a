import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchableUrl, pageKey, routeFragment, withoutFileName } from '../../src/crawl/url-key.ts';

/**
 * The crawl frontier's dedupe key and the fetchable form of a discovered link (jobs spec §2.6):
 * every spelling of one page gets one key, different pages keep different keys.
 */

const similar = { deduplicateSimilarURLs: true, ignoreQueryParameters: false };
const exact = { deduplicateSimilarURLs: false, ignoreQueryParameters: false };

/** Every URL in `group` has one key, and it differs from every other group's. */
function assertGroups(groups: string[][], options: typeof similar) {
  const keys = groups.map((group) => {
    const set = new Set(group.map((url) => pageKey(url, options)));
    assert.equal(set.size, 1, `one key for ${group.join(', ')}: ${[...set].join(' | ')}`);
    return [...set][0]!;
  });
  assert.equal(new Set(keys).size, groups.length, `distinct groups: ${keys.join(' | ')}`);
}

describe('pageKey with deduplicateSimilarURLs', () => {
  it('gives one key to {www, bare} × {http, https} × {/x, /x/, index pages}', () => {
    const spellings = (path: string) => {
      const out: string[] = [];
      for (const scheme of ['http', 'https']) {
        for (const host of ['www.fernhill.example', 'fernhill.example']) {
          for (const tail of ['', '/', '/index.html', '/index.htm', '/index.php']) {
            out.push(`${scheme}://${host}${path}${tail}`);
          }
        }
      }
      return out;
    };
    const docs = spellings('/docs');
    assert.equal(docs.length, 20);
    assertGroups([docs, spellings('/blog'), spellings('/docs/setup')], similar);
    // The root: `/`, no path and `/index.html` are one page.
    assertGroups(
      [
        ['https://fernhill.example', 'http://www.fernhill.example/', 'https://fernhill.example/index.html'],
        docs,
      ],
      similar,
    );
  });

  it('lower-cases the host, drops default ports and writes percent-escapes one way', () => {
    assertGroups(
      [
        [
          'https://FernHill.Example:443/Caf%c3%a9/%7Euser',
          'https://fernhill.example/Caf%C3%A9/~user',
          'https://fernhill.example/Café/%7euser',
        ],
        // The path's case is the server's business: a different page.
        ['https://fernhill.example/café/~user'],
        // A port that is not the default is another server.
        ['https://fernhill.example:8443/Café/~user'],
      ],
      similar,
    );
  });

  it('sorts query parameters, keeping the order of repeated ones', () => {
    assertGroups(
      [
        ['https://f.example/s?a=1&b=2', 'https://f.example/s?b=2&a=1', 'https://f.example/s?b=2&&a=1&'],
        ['https://f.example/s?a=1&b=3'],
        ['https://f.example/s?t=1&t=2&z=0', 'https://f.example/s?z=0&t=1&t=2'],
        ['https://f.example/s?t=2&t=1&z=0'],
      ],
      similar,
    );
  });

  it('leaves tracking and session-id parameters out of the key', () => {
    const base = 'https://f.example/item?id=7';
    const noisy = [
      `${base}&utm_source=news&utm_medium=mail&utm_campaign=x`,
      `${base}&gclid=abc&fbclid=def&msclkid=1`,
      `${base}&jsessionid=0123ABCD`,
      `https://f.example/item?PHPSESSID=77&id=7`,
      `https://f.example/item?sid=99&id=7&_ga=2.1`,
      `https://f.example/item;jsessionid=0123ABCD?id=7`,
      `https://f.example/item?id=7&mc_cid=1&mc_eid=2`,
    ];
    assertGroups([[base, ...noisy], ['https://f.example/item?id=8&utm_source=news']], similar);
  });

  it('drops the query with ignoreQueryParameters, keeps it otherwise', () => {
    const urls = ['https://f.example/p?page=2', 'https://f.example/p?page=3', 'https://f.example/p'];
    assert.equal(new Set(urls.map((u) => pageKey(u, { ...similar, ignoreQueryParameters: true }))).size, 1);
    assert.equal(new Set(urls.map((u) => pageKey(u, similar))).size, 3);
  });

  it('drops fragments except client routes of more than one character', () => {
    assertGroups(
      [
        [
          'https://f.example/app',
          'https://f.example/app#top',
          'https://f.example/app#/',
          'https://f.example/app#',
        ],
        ['https://f.example/app#/settings', 'https://www.f.example/app/#/settings'],
        ['https://f.example/app#!/settings'],
        ['https://f.example/app#/profile'],
      ],
      similar,
    );
  });
});

describe('pageKey without deduplicateSimilarURLs', () => {
  it('keeps scheme, www, trailing slash and index pages apart, but still normalises', () => {
    const variants = [
      'https://f.example/x',
      'https://f.example/x/',
      'https://f.example/x/index.html',
      'http://f.example/x',
      'https://www.f.example/x',
    ];
    assert.equal(new Set(variants.map((u) => pageKey(u, exact))).size, variants.length);
    assert.equal(
      pageKey('HTTPS://F.Example:443/x?b=2&a=1&utm_term=q#frag', exact),
      'https://f.example/x?a=1&b=2',
    );
    assert.equal(pageKey('https://f.example/x#/route', exact), 'https://f.example/x#/route');
  });

  it('returns an unparsable URL as its own key', () => {
    assert.equal(pageKey('not a url', exact), 'not a url');
  });
});

describe('fetchableUrl', () => {
  const page = 'https://f.example/docs/guide/intro';

  it('resolves relative links against the page and keeps only http(s)', () => {
    const cases: [string, string | undefined][] = [
      ['setup', 'https://f.example/docs/guide/setup'],
      ['../api?v=2', 'https://f.example/docs/api?v=2'],
      ['/pricing#plans', 'https://f.example/pricing'],
      ['#section', 'https://f.example/docs/guide/intro'],
      ['#/route/a', 'https://f.example/docs/guide/intro#/route/a'],
      ['#!/route', 'https://f.example/docs/guide/intro#!/route'],
      ['//cdn.f.example/a', 'https://cdn.f.example/a'],
      ['  http://Other.Example/p  ', 'http://other.example/p'],
      ['mailto:hi@f.example', undefined],
      ['javascript:void(0)', undefined],
      ['tel:+123', undefined],
      ['data:text/html,hi', undefined],
      ['ftp://f.example/file', undefined],
      ['http://[bad', undefined],
    ];
    for (const [href, expected] of cases) assert.equal(fetchableUrl(href, page), expected, href);
  });

  it('gives undefined for a relative link on an unparsable base', () => {
    assert.equal(fetchableUrl('a', 'nonsense'), undefined);
  });
});

describe('helpers', () => {
  it('routeFragment keeps only routes', () => {
    assert.deepEqual(['#/a', '#!/a', '#/', '#!/', '#a', '', '#'].map(routeFragment), [
      '#/a',
      '#!/a',
      '',
      '',
      '',
      '',
      '',
    ]);
  });

  it('withoutFileName cuts a page file name to its directory', () => {
    assert.deepEqual(
      ['/docs/index.html', '/docs/', '/docs', '/v1.2', '/a/report.PDF', '/'].map(withoutFileName),
      ['/docs/', '/docs/', '/docs', '/v1.2', '/a/', '/'],
    );
  });
});
