import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CrawlScope,
  isTrapLike,
  refusals,
  type ScopeOptions,
  VariantBudget,
  variantPattern,
} from '../../src/crawl/scope.ts';
import { limits } from '../../src/limits.ts';

/**
 * Which discovered URLs a crawl may fetch (jobs spec §2.1, §2.6): include/exclude patterns, the
 * start path, hosts (www., subdomains, external links), skipped file types, and the trap guards.
 */

const defaults: ScopeOptions = {
  includePaths: [],
  excludePaths: [],
  regexOnFullURL: false,
  crawlEntireDomain: false,
  allowSubdomains: false,
  allowExternalLinks: false,
};
const scope = (seed: string, options: Partial<ScopeOptions> = {}) =>
  new CrawlScope(seed, { ...defaults, ...options });

/** Each case: a URL (and the page it was found on) and the reason expected, undefined for allowed. */
function expectAll(s: CrawlScope, cases: [string, string | undefined, string?][]) {
  for (const [url, reason, from] of cases) assert.equal(s.refuse(url, from), reason, `${url} from ${from}`);
}

describe('CrawlScope: the start path', () => {
  it('admits only paths starting with the seed path, by plain prefix, without crawlEntireDomain', () => {
    expectAll(scope('https://fernhill.example/blog'), [
      ['https://fernhill.example/blog', undefined],
      ['https://fernhill.example/blog/spring', undefined],
      ['https://fernhill.example/blog-archive/2020', undefined],
      ['https://fernhill.example/shop', refusals.startPath],
      ['https://fernhill.example/', refusals.startPath],
    ]);
  });

  it('takes a seed naming a page file as its directory, and the directory without its slash', () => {
    expectAll(scope('https://fernhill.example/docs/index.html'), [
      ['https://fernhill.example/docs/setup', undefined],
      ['https://fernhill.example/docs', undefined],
      ['https://fernhill.example/docs/', undefined],
      ['https://fernhill.example/docsets', refusals.startPath],
      ['https://fernhill.example/about', refusals.startPath],
    ]);
  });

  it('admits the whole host with crawlEntireDomain', () => {
    expectAll(scope('https://fernhill.example/blog', { crawlEntireDomain: true }), [
      ['https://fernhill.example/shop', undefined],
      ['https://fernhill.example/', undefined],
    ]);
  });
});

describe('CrawlScope: hosts', () => {
  it('counts www. and the bare host, either scheme, as the seed host', () => {
    expectAll(scope('https://www.fernhill.example/'), [
      ['http://fernhill.example/a', undefined],
      ['https://www.fernhill.example/b', undefined],
      ['https://shop.fernhill.example/c', refusals.external],
      ['https://elsewhere.example/c', refusals.external],
    ]);
  });

  it('admits subdomains of the registrable domain (public-suffix list) with allowSubdomains', () => {
    expectAll(scope('https://www.fernhill.co.uk/', { allowSubdomains: true }), [
      ['https://shop.fernhill.co.uk/a', undefined],
      ['https://a.b.fernhill.co.uk/a', undefined],
      ['https://fernhill.co.uk/a', undefined],
      // co.uk is a public suffix: another company, not a subdomain.
      ['https://oakfield.co.uk/a', refusals.external],
    ]);
    // github.io is a private suffix: each user's site is its own registrable domain.
    expectAll(scope('https://fern.github.io/docs/', { allowSubdomains: true }), [
      ['https://api.fern.github.io/x', undefined],
      ['https://oak.github.io/x', refusals.external],
    ]);
    expectAll(scope('https://www.fernhill.co.uk/'), [['https://shop.fernhill.co.uk/a', refusals.external]]);
  });

  it('binds the start path to the seed host only: an allowed subdomain is taken whole', () => {
    expectAll(scope('https://fernhill.example/docs/', { allowSubdomains: true }), [
      ['https://blog.fernhill.example/2024/post', undefined],
      ['https://fernhill.example/blog', refusals.startPath],
    ]);
  });

  it('follows external links only from pages of the seed host, never to social hosts or root pages', () => {
    const s = scope('https://fernhill.example/', { allowExternalLinks: true });
    const home = 'https://www.fernhill.example/about';
    expectAll(s, [
      ['https://oakfield.example/article', undefined, home],
      ['https://oakfield.example/article', refusals.external, 'https://oakfield.example/other'],
      ['https://oakfield.example/article', refusals.external],
      ['https://oakfield.example/', refusals.externalRoot, home],
      ['https://oakfield.example', refusals.externalRoot, home],
      ['https://oakfield.example/?q=1', refusals.externalRoot, home],
      ['https://www.facebook.com/fernhill', refusals.social, home],
      ['https://x.com/fernhill/status/1', refusals.social, home],
      ['https://github.com/fernhill/repo', refusals.social, home],
      ['https://youtu.be/abc', refusals.social, home],
      ['https://m.youtube.com/watch?v=1', refusals.social, home],
      // Only hosts, not strings: box.com is not x.com.
      ['https://box.com/files/1', undefined, home],
    ]);
    expectAll(scope('https://fernhill.example/'), [
      ['https://oakfield.example/article', refusals.external, home],
    ]);
  });

  it('refuses what is not http(s)', () => {
    expectAll(scope('https://fernhill.example/'), [
      ['ftp://fernhill.example/file', refusals.notHttp],
      ['mailto:a@fernhill.example', refusals.notHttp],
      ['not a url', refusals.notHttp],
    ]);
  });
});

describe('CrawlScope: patterns and file types', () => {
  it('matches include and exclude as unanchored searches on the path', () => {
    const s = scope('https://fernhill.example/', {
      includePaths: ['^/blog/', 'news'],
      excludePaths: ['draft'],
    });
    expectAll(s, [
      ['https://fernhill.example/blog/spring', undefined],
      ['https://fernhill.example/de/news/today', undefined],
      ['https://fernhill.example/shop', refusals.include],
      ['https://fernhill.example/blog/draft-1', refusals.exclude],
      // The query is not part of the path.
      ['https://fernhill.example/shop?topic=news', refusals.include],
      ['https://fernhill.example/blog/a?state=draft', undefined],
    ]);
  });

  it('matches the full URL with regexOnFullURL, for every URL', () => {
    const s = scope('https://fernhill.example/', {
      includePaths: ['^https://fernhill\\.example/'],
      excludePaths: ['\\?print=1'],
      regexOnFullURL: true,
    });
    expectAll(s, [
      ['https://fernhill.example/a', undefined],
      ['https://fernhill.example/a?print=1', refusals.exclude],
      ['http://fernhill.example/a', refusals.include],
    ]);
  });

  it('accepts JS-only patterns such as look-arounds', () => {
    const s = scope('https://fernhill.example/', { includePaths: ['^/(?!private)'] });
    expectAll(s, [
      ['https://fernhill.example/public', undefined],
      ['https://fernhill.example/private/a', refusals.include],
    ]);
  });

  it('skips assets and media by the path extension, but crawls PDF, DOCX and XML', () => {
    const s = scope('https://fernhill.example/');
    for (const ext of ['png', 'JPG', 'css', 'js', 'woff2', 'mp4', 'zip', 'xlsx', 'pptx', 'webp', 'inc']) {
      assert.equal(s.refuse(`https://fernhill.example/assets/file.${ext}`), refusals.fileType, ext);
    }
    for (const ext of ['pdf', 'docx', 'xml', 'html', 'php']) {
      assert.equal(s.refuse(`https://fernhill.example/files/file.${ext}`), undefined, ext);
    }
    // The extension is the path's, not the query's, and not a directory's.
    assert.equal(s.refuse('https://fernhill.example/page?img=a.png'), undefined);
    assert.equal(s.refuse('https://fernhill.example/v1.js/guide'), undefined);
  });
});

describe('CrawlScope: rebase', () => {
  it('applies the same rules to a new seed after the seed redirects to another host', () => {
    const s = scope('https://fernhill.example/docs/', { excludePaths: ['old'] });
    const moved = s.rebase('https://docs.oakfield.example/v2/');
    assert.equal(moved.seed, 'https://docs.oakfield.example/v2/');
    expectAll(moved, [
      ['https://docs.oakfield.example/v2/start', undefined],
      ['https://docs.oakfield.example/v1/start', refusals.startPath],
      ['https://docs.oakfield.example/v2/old', refusals.exclude],
      ['https://fernhill.example/docs/a', refusals.external],
    ]);
  });
});

describe('trap guards', () => {
  it('isTrapLike: too deep, a segment repeated, too long', () => {
    const deep = `https://f.example/${Array.from({ length: limits.crawlTrapPathSegments + 1 }, (_, i) => `s${i}`).join('/')}`;
    const deepEnough = `https://f.example/${Array.from({ length: limits.crawlTrapPathSegments }, (_, i) => `s${i}`).join('/')}/`;
    assert.equal(isTrapLike(deep), true);
    assert.equal(isTrapLike(deepEnough), false);
    assert.equal(isTrapLike('https://f.example/a/b/a/b/a/b'), true);
    assert.equal(isTrapLike('https://f.example/a/b/a/b'), false);
    assert.equal(isTrapLike('https://f.example/2024/05/05/post'), false);
    assert.equal(isTrapLike(`https://f.example/search?q=${'x'.repeat(limits.crawlTrapUrlChars)}`), true);
    assert.equal(isTrapLike('https://f.example/docs/setup'), false);
    assert.equal(scope('https://f.example/').refuse('https://f.example/a/b/a/b/a/b'), refusals.trap);
  });

  it('variantPattern: digit runs and query values do not make a new pattern', () => {
    assert.equal(
      variantPattern('https://www.f.example/calendar/2024/01/05'),
      variantPattern('https://f.example/calendar/2031/12/30'),
    );
    assert.equal(
      variantPattern('https://f.example/list?page=1'),
      variantPattern('https://f.example/list?page=99'),
    );
    assert.equal(
      variantPattern('https://f.example/s?q=tea&sort=new'),
      variantPattern('https://f.example/s?sort=old&q=cups'),
    );
    assert.notEqual(
      variantPattern('https://f.example/list?page=1'),
      variantPattern('https://f.example/list'),
    );
    assert.notEqual(
      variantPattern('https://f.example/blog/tea'),
      variantPattern('https://f.example/blog/cups'),
    );
  });

  it('VariantBudget admits maxPerPattern URLs of one pattern, others still', () => {
    const budget = new VariantBudget(5);
    const days = Array.from(
      { length: 9 },
      (_, i) => `https://f.example/calendar/2024/01/${String(i + 1).padStart(2, '0')}`,
    );
    assert.deepEqual(
      days.map((d) => budget.admit(d)),
      [true, true, true, true, true, false, false, false, false],
    );
    assert.equal(budget.admit('https://f.example/about'), true);
    assert.equal(budget.admit('https://f.example/calendar/2024/01/10?view=week'), true);
    for (let page = 1; page <= 5; page++)
      assert.equal(budget.admit(`https://f.example/list?page=${page}`), true);
    assert.equal(budget.admit('https://f.example/list?page=6'), false);
  });
});
