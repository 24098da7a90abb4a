import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RobotsRules, robotsAgent } from '../../src/crawl/robots.ts';
import { limits } from '../../src/limits.ts';
import { userAgent } from '../../src/scrape/request-headers.ts';

/**
 * robots.txt as a crawl obeys it (jobs spec §2.5): Quire's token and Firecrawl's both bind, the
 * trailing-slash leniency, bodies that are not robots files, Crawl-delay and Sitemap lines.
 */

const robotsUrl = 'https://fernhill.example/robots.txt';
const site = (path: string) => `https://fernhill.example${path}`;
/** A robots.txt from groups of [agents, lines]. */
const robots = (...groups: [string[], string[]][]) =>
  groups
    .map(([agents, lines]) => [...agents.map((a) => `User-agent: ${a}`), ...lines].join('\n'))
    .join('\n\n');

describe('RobotsRules.allows', () => {
  it('applies the * group to every agent', () => {
    const rules = RobotsRules.parse(
      robotsUrl,
      robots([['*'], ['Disallow: /private', 'Allow: /private/open']]),
    );
    assert.equal(rules.allows(site('/public')), true);
    assert.equal(rules.allows(site('/private/x')), false);
    assert.equal(rules.allows(site('/private/open/y')), true);
  });

  it("refuses what Quire's own group disallows", () => {
    const rules = RobotsRules.parse(
      robotsUrl,
      robots([['*'], ['Allow: /']], [['Quire'], ['Disallow: /shop']]),
    );
    assert.equal(rules.allows(site('/shop/tea')), false);
    assert.equal(rules.allows(site('/blog')), true);
  });

  it("refuses what Firecrawl's group disallows, in either spelling, even when Quire's allows", () => {
    for (const agent of ['FirecrawlAgent', 'FireCrawlAgent', 'firecrawlagent/1.0']) {
      const rules = RobotsRules.parse(
        robotsUrl,
        robots([[agent], ['Disallow: /docs']], [[robotsAgent], ['Allow: /']], [['*'], ['Disallow: /']]),
      );
      assert.equal(rules.allows(site('/docs/a')), false, agent);
      assert.equal(rules.allows(site('/blog')), true, agent);
    }
  });

  it('lets a group naming Quire and Firecrawl open what * closes', () => {
    const rules = RobotsRules.parse(
      robotsUrl,
      robots([['*'], ['Disallow: /']], [['FirecrawlAgent', 'Quire'], ['Allow: /']]),
    );
    assert.equal(rules.allows(site('/anything')), true);
    const closed = RobotsRules.parse(
      robotsUrl,
      robots([['*'], ['Disallow: /']], [['FirecrawlAgent'], ['Allow: /']]),
    );
    assert.equal(closed.allows(site('/anything')), false, 'Quire falls back to *, which disallows');
  });

  it('also tries a path without a trailing slash with one (allowed if either is)', () => {
    const rules = RobotsRules.parse(robotsUrl, robots([['*'], ['Disallow: /docs', 'Allow: /docs/']]));
    assert.equal(rules.allows(site('/docs')), true);
    assert.equal(rules.allows(site('/docsets')), false);
    assert.equal(rules.allows(site('/docs/a')), true);
    // Not for a file name: /docs.html/ is not the directory /docs.html.
    const files = RobotsRules.parse(robotsUrl, robots([['*'], ['Disallow: /a.html', 'Allow: /a.html/']]));
    assert.equal(files.allows(site('/a.html')), false);
  });

  it('matches wildcards and $ through robots-parser, and gives $ rules no trailing-slash leniency', () => {
    const rules = RobotsRules.parse(
      robotsUrl,
      robots([
        ['*'],
        ['Disallow: /*.pdf$', 'Disallow: /*?print=', 'Disallow: /search$  # exact', 'Disallow: /tmp'],
      ]),
    );
    assert.equal(rules.allows(site('/files/report.pdf')), false);
    assert.equal(rules.allows(site('/search')), false);
    assert.equal(rules.allows(site('/search/advanced')), true);
    assert.equal(rules.allows(site('/tmp')), false);
    assert.equal(rules.allows(site('/files/report.pdf.html')), true);
    assert.equal(rules.allows(site('/page?print=1')), false);
    assert.equal(rules.allows(site('/page?view=1')), true);
  });

  it('binds the host under either scheme and with or without www., and no other host', () => {
    const rules = RobotsRules.parse(robotsUrl, robots([['*'], ['Disallow: /private']]));
    assert.equal(rules.allows('http://fernhill.example/private'), false);
    assert.equal(rules.allows('https://www.fernhill.example/private'), false);
    assert.equal(rules.allows('https://shop.fernhill.example/private'), true);
    assert.equal(rules.allows('https://oakfield.example/private'), true);
    assert.equal(rules.allows('https://fernhill.example:8443/private'), true);
    // A path starting with // is a path here, not another host.
    assert.equal(rules.allows('https://fernhill.example//oakfield.example/private'), true);
    assert.equal(
      RobotsRules.parse(robotsUrl, robots([['*'], ['Disallow: //']])).allows('https://fernhill.example//x'),
      false,
    );
  });

  it('reads HTML, JSON and XML bodies as empty', () => {
    const disallowAll = robots([['*'], ['Disallow: /']]);
    assert.equal(
      RobotsRules.parse(robotsUrl, disallowAll, 'text/plain; charset=utf-8').allows(site('/a')),
      false,
    );
    assert.equal(
      RobotsRules.parse(robotsUrl, disallowAll, 'text/html; charset=utf-8').allows(site('/a')),
      true,
    );
    assert.equal(RobotsRules.parse(robotsUrl, disallowAll, 'application/json').allows(site('/a')), true);
    assert.equal(RobotsRules.parse(robotsUrl, disallowAll, 'application/xml').allows(site('/a')), true);
    const page = `\uFEFF  <!doctype html><html><body>${disallowAll}</body></html>`;
    assert.equal(RobotsRules.parse(robotsUrl, page).allows(site('/a')), true);
    assert.equal(RobotsRules.parse(robotsUrl, `{"rules": "${disallowAll}"}`).allows(site('/a')), true);
    assert.equal(RobotsRules.parse(robotsUrl, '').allows(site('/a')), true);
  });

  it('reads no further than limits.robotsChars', () => {
    const filler = `# ${'x'.repeat(100)}\n`.repeat(Math.ceil(limits.robotsChars / 100));
    const body = `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`;
    const rules = RobotsRules.parse(robotsUrl, body);
    assert.equal(rules.allows(site('/early')), false);
    assert.equal(rules.allows(site('/late')), true);
  });

  it('allowAll allows everything and has no delay or sitemaps', () => {
    const rules = RobotsRules.allowAll();
    assert.equal(rules.allows(site('/private')), true);
    assert.equal(rules.crawlDelayS(), undefined);
    assert.deepEqual(rules.sitemaps(), []);
  });
});

describe('RobotsRules.crawlDelayS', () => {
  it("takes Quire's group, else Firecrawl's, else *'s", () => {
    const all = robots(
      [['*'], ['Crawl-delay: 1']],
      [['FirecrawlAgent'], ['Crawl-delay: 2']],
      [['Quire'], ['Crawl-delay: 3']],
    );
    assert.equal(RobotsRules.parse(robotsUrl, all).crawlDelayS(), 3);
    const firecrawl = robots([['*'], ['Crawl-delay: 1']], [['FireCrawlAgent'], ['Crawl-delay: 2.5']]);
    assert.equal(RobotsRules.parse(robotsUrl, firecrawl).crawlDelayS(), 2.5);
    assert.equal(RobotsRules.parse(robotsUrl, robots([['*'], ['Crawl-delay: 4']])).crawlDelayS(), 4);
    // Quire's group applies and has no delay: none, though * has one.
    const quireNoDelay = robots([['*'], ['Crawl-delay: 4']], [['Quire/0.1'], ['Disallow: /x']]);
    assert.equal(RobotsRules.parse(robotsUrl, quireNoDelay).crawlDelayS(), undefined);
  });

  it('is capped by limits.robotsCrawlDelayMaxS and ignores nonsense', () => {
    const long = robots([['*'], [`Crawl-delay: ${limits.robotsCrawlDelayMaxS * 100}`]]);
    assert.equal(RobotsRules.parse(robotsUrl, long).crawlDelayS(), limits.robotsCrawlDelayMaxS);
    assert.equal(
      RobotsRules.parse(robotsUrl, robots([['*'], ['Crawl-delay: soon']])).crawlDelayS(),
      undefined,
    );
    assert.equal(RobotsRules.parse(robotsUrl, robots([['*'], ['Crawl-delay: -3']])).crawlDelayS(), undefined);
  });
});

describe('RobotsRules.sitemaps and the agent', () => {
  it('lists Sitemap lines resolved, http(s) only, each once', () => {
    const body = [
      'Sitemap: https://fernhill.example/sitemap-a.xml',
      'User-agent: *',
      'Disallow:',
      'sitemap:   /sitemap-b.xml.gz  ',
      'Sitemap: https://fernhill.example/sitemap-a.xml',
      'Sitemap: ftp://fernhill.example/c.xml',
    ].join('\r\n');
    assert.deepEqual(RobotsRules.parse(robotsUrl, body).sitemaps(), [
      'https://fernhill.example/sitemap-a.xml',
      'https://fernhill.example/sitemap-b.xml.gz',
    ]);
  });

  it('names Quire in the fetch User-Agent by its robots token', () => {
    assert.equal(robotsAgent, 'Quire');
    assert.match(userAgent, new RegExp(`\\b${robotsAgent}/`));
  });
});
