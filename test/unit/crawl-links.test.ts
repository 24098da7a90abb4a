import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageLinks } from '../../src/crawl/links.ts';

/** The links a crawl follows from one HTML page: anchors and areas, base href, canonical, meta robots. */

const page = 'https://fernhill.example/docs/guide/intro';
const html = (head: string, body: string) =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('pageLinks', () => {
  it('gives a and area hrefs, resolved, fetchable, unique, in document order', () => {
    const body = [
      '<a href="setup">Setup</a>',
      '<A HREF="/pricing?plan=a&amp;x=1#faq">Pricing</A>',
      '<map><area href="../api" alt=""></map>',
      '<a href="mailto:hi@fernhill.example">mail</a>',
      '<a href="javascript:void(0)">js</a>',
      '<a href="#section">same page</a>',
      '<a href="#/app/route">route</a>',
      '<a>no href</a>',
      '<a href="setup#part-2">Setup again</a>',
      '<a rel="nofollow" href="https://oakfield.example/x">external, nofollow</a>',
      "<a href='  //cdn.fernhill.example/file.pdf  '>pdf</a>",
      '<script>document.write(\'<a href="/from-script">x</a>\')</script>',
      '<style>a[href="/from-style"]{}</style>',
      '<link href="/styles.css" rel="stylesheet">',
    ].join('\n');
    const result = pageLinks(html('', body), page);
    assert.deepEqual(result.links, [
      'https://fernhill.example/docs/guide/setup',
      'https://fernhill.example/pricing?plan=a&x=1',
      'https://fernhill.example/docs/api',
      'https://fernhill.example/docs/guide/intro',
      'https://fernhill.example/docs/guide/intro#/app/route',
      'https://oakfield.example/x',
      'https://cdn.fernhill.example/file.pdf',
    ]);
    assert.equal(result.canonical, undefined);
    assert.equal(result.robotsNoFollow, false);
  });

  it('resolves against the first <base href>, wherever it stands, and the canonical too', () => {
    const result = pageLinks(
      html(
        '<link rel="alternate canonical" href="/en/intro"><link rel="canonical" href="/second">',
        '<a href="a">a</a><base href="https://mirror.fernhill.example/v2/"><base href="/ignored/"><a href="b">b</a>',
      ),
      page,
    );
    assert.deepEqual(result.links, [
      'https://mirror.fernhill.example/v2/a',
      'https://mirror.fernhill.example/v2/b',
    ]);
    assert.equal(result.canonical, 'https://mirror.fernhill.example/en/intro');
  });

  it('ignores a base href that is not http(s)', () => {
    const result = pageLinks(html('<base href="javascript:alert(1)">', '<a href="x">x</a>'), page);
    assert.deepEqual(result.links, ['https://fernhill.example/docs/guide/x']);
  });

  it('reads meta robots nofollow (and none, and Quire’s and Firecrawl’s names)', () => {
    const cases: [string, boolean][] = [
      ['<meta name="robots" content="index, nofollow">', true],
      ['<meta name="ROBOTS" content="NOFOLLOW">', true],
      ['<meta name="robots" content="none">', true],
      ['<meta name="quire" content="nofollow">', true],
      ['<meta name="FirecrawlAgent" content="noindex,nofollow">', true],
      ['<meta name="robots" content="noindex">', false],
      ['<meta name="googlebot" content="nofollow">', false],
      ['<meta name="description" content="we nofollow nothing">', false],
      ['<meta name="robots" content="nofollowing">', false],
    ];
    for (const [meta, expected] of cases) {
      const result = pageLinks(html(meta, '<a href="/x">x</a>'), page);
      assert.equal(result.robotsNoFollow, expected, meta);
      assert.deepEqual(result.links, ['https://fernhill.example/x'], 'links are still reported');
    }
  });

  it('reads a generated 200 KB page with 2,000 links', () => {
    let body = '';
    for (let i = 0; i < 2_000; i++) {
      body += `<li class="item"><a href="/p/${i % 1_500}?ref=list&amp;n=${i % 1_500}">Item ${i}</a> <span>text &amp; more text</span></li>\n`;
    }
    const doc = html('<title>List</title>', `<ul>${body}</ul>`);
    assert.ok(doc.length > 150_000);
    const result = pageLinks(doc, page);
    assert.equal(result.links.length, 1_500);
    assert.equal(result.links[1_499], 'https://fernhill.example/p/1499?ref=list&n=1499');
  });
});
