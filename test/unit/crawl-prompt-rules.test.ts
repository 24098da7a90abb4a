import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { crawlOptionsSchema, previewRequestSchema } from '../../src/crawl/crawl-options.ts';
import { previewCrawlOptions } from '../../src/crawl/preview.ts';
import { readPromptByRules } from '../../src/crawl/prompt-rules.ts';
import { siteStructure } from '../../src/crawl/site-structure.ts';
import { type ChatRequest, type LanguageModel, ModelError } from '../../src/enrich/llm/provider.ts';
import { ApiError } from '../../src/errors.ts';
import { UploadBudget } from '../../src/quota/upload-budget.ts';
import { NetPolicy } from '../../src/sessions/net-policy.ts';

/**
 * The params-preview prompt reader (README, Scrape: crawl params preview) called in-process: the
 * rule-based reader on prompts written here against a made-up site, the options schema, the
 * model's path with a scripted model, and the site's URLs read from a loopback sitemap and start
 * page. The HTTP route is test/http/crawl-preview-rules.test.ts.
 */

const start = 'https://www.fernhill.example/';
/** The site's URLs as siteStructure would give them: nested, plural, www and bare host, and a foreign host. */
const site = [
  'https://www.fernhill.example/documentation/setup',
  'https://www.fernhill.example/guides/billing',
  'https://fernhill.example/de/news/spring-fair',
  'https://www.fernhill.example/recipes/nettle-soup',
  'https://www.fernhill.example/team/',
  'https://www.fernhill.example/shop/teapots/blue',
  'https://elsewhere.example/about/careers',
];
const read = (prompt: string) => readPromptByRules(start, prompt, site);
const under = (path: string) => `^${path}(?:/.*)?$`;

/** Each case: a prompt and exactly the options it implies. */
function expectAll(cases: [string, Record<string, unknown>][]) {
  for (const [prompt, options] of cases) assert.deepEqual(read(prompt), options, prompt);
}

describe('the rule-based reader: sections', () => {
  it("names sections by the site's own paths: plural, abbreviated, nested, any host spelling", () => {
    expectAll([
      [
        'Only the guides and the news, at most 75 pages',
        { includePaths: [under('/guides'), under('/de/news')], limit: 75 },
      ],
      ['just the docs', { includePaths: [under('/documentation')] }],
      ['guide pages only', { includePaths: [under('/guides')] }],
      ['skip the recipe pages', { excludePaths: [under('/recipes')] }],
      ['grab everything under /shop/teapots', { includePaths: [under('/shop/teapots')] }],
    ]);
  });

  it('uses a name the site does not have as it stands, and ignores other hosts', () => {
    expectAll([
      ['only the pricing section', { includePaths: [under('/pricing')] }],
      ['exclude the careers pages', { excludePaths: [under('/careers')] }],
    ]);
  });

  it('reads literal paths, wildcards, the root and full URLs', () => {
    expectAll([
      ['crawl /shop/* and /', { includePaths: [under('/shop'), '^/.*$'] }],
      ['crawl https://www.fernhill.example/guides/billing', { includePaths: [under('/guides/billing')] }],
    ]);
  });

  it('carries a verb over a list, and turns an include verb after a negation into an exclusion', () => {
    expectAll([
      [
        'skip /careers, /jobs and the team pages',
        { excludePaths: [under('/careers'), under('/jobs'), under('/team')] },
      ],
      ["don't crawl the shop", { excludePaths: [under('/shop')] }],
      ['never include the news', { excludePaths: [under('/de/news')] }],
      [
        'Crawl the guides then skip the teapots',
        { includePaths: [under('/guides')], excludePaths: [under('/shop/teapots')] },
      ],
      ['everything except the recipes', { crawlEntireDomain: true, excludePaths: [under('/recipes')] }],
    ]);
  });
});

describe('the rule-based reader: options', () => {
  it('reads depth in words and digits, capped at 100', () => {
    expectAll([
      ['three levels deep', { maxDiscoveryDepth: 3 }],
      ['depth 4', { maxDiscoveryDepth: 4 }],
      ['no deeper than 2 hops', { maxDiscoveryDepth: 2 }],
      ['depth 500', { maxDiscoveryDepth: 100 }],
    ]);
  });

  it('reads limits in words, digits, thousands and k; "fewer than" is strict; capped at 100,000', () => {
    expectAll([
      ['a dozen pages', { limit: 12 }],
      ['no more than two hundred fifty pages', { limit: 250 }],
      ['first 10k pages', { limit: 10_000 }],
      ['up to 1,500 pages', { limit: 1500 }],
      ['fewer than 30 pages', { limit: 29 }],
      ['not more than 40 articles', { limit: 40 }],
      ['limit 250000 pages', { limit: 100_000 }],
    ]);
  });

  it('reads the sitemap, subdomains, external links, the whole domain, query strings and duplicates', () => {
    expectAll([
      ['only use the sitemap', { sitemap: 'only' }],
      ['ignore the sitemap', { sitemap: 'skip' }],
      ['use the sitemap', { sitemap: 'include' }],
      ['include subdomains', { allowSubdomains: true }],
      ["don't crawl subdomains", { allowSubdomains: false }],
      ['stay on this subdomain', { allowSubdomains: false }],
      [
        'follow links to other sites but not subdomains',
        { allowExternalLinks: true, allowSubdomains: false },
      ],
      ["don't follow external links", { allowExternalLinks: false }],
      ['the whole domain', { crawlEntireDomain: true }],
      ['ignore query parameters', { ignoreQueryParameters: true }],
      ['keep query strings', { ignoreQueryParameters: false }],
      ['dedupe similar URLs', { deduplicateSimilarURLs: true }],
    ]);
  });

  it('reads a delay in seconds, from milliseconds, minutes and words', () => {
    expectAll([
      ['wait half a second between requests', { delay: 0.5 }],
      ['wait 250ms between requests', { delay: 0.25 }],
      ['delay of 3', { delay: 3 }],
      ['pause 1.5 minutes between pages', { delay: 90 }],
      ['wait a minute between requests', { delay: 60 }],
    ]);
  });

  it('reads formats, with markdown kept when one is named as an addition', () => {
    expectAll([
      ['as markdown and html', { scrapeOptions: { formats: ['markdown', 'html'] } }],
      ['with screenshots', { scrapeOptions: { formats: ['markdown', 'screenshot'] } }],
      ['return raw html and links', { scrapeOptions: { formats: ['rawHtml', 'links'] } }],
      ['summaries only', { scrapeOptions: { formats: ['summary'] } }],
      ['as html, not markdown', { scrapeOptions: { formats: ['html'] } }],
    ]);
  });

  it('reads languages and countries into scrapeOptions.location', () => {
    expectAll([
      ['in French', { scrapeOptions: { location: { languages: ['fr'] } } }],
      ['German and Spanish versions', { scrapeOptions: { location: { languages: ['de', 'es'] } } }],
      ['as seen from Japan', { scrapeOptions: { location: { country: 'JP' } } }],
      ['from the United Kingdom', { scrapeOptions: { location: { country: 'GB' } } }],
      [
        'the Portuguese edition as seen from Brazil',
        { scrapeOptions: { location: { country: 'BR', languages: ['pt'] } } },
      ],
    ]);
  });

  it('reads many options from one prompt, each from its own clause', () => {
    expectAll([
      [
        'Two levels deep, one hundred pages, in Portuguese, as markdown; skip the shop and wait 2 seconds between requests',
        {
          maxDiscoveryDepth: 2,
          limit: 100,
          excludePaths: [under('/shop')],
          delay: 2,
          scrapeOptions: { formats: ['markdown'], location: { languages: ['pt'] } },
        },
      ],
    ]);
  });

  it('gives options that the crawl option schema accepts', () => {
    for (const prompt of [
      'depth 500, limit 250000 pages',
      'wait 90 minutes between requests',
      'only the guides',
    ])
      assert.equal(crawlOptionsSchema.safeParse(read(prompt)).success, true, prompt);
  });
});

describe('the rule-based reader: prompts it must refuse', () => {
  it('reads nothing in small talk, a bare number, another language, or a zero limit', () => {
    for (const prompt of [
      'hello there, how are you?',
      'What a lovely day',
      'what is the weather like',
      '42',
      '',
      'nur die Dokumentation bitte',
      'limit 0 pages',
    ])
      assert.equal(read(prompt), undefined, prompt);
  });

  it('has the limits the README states: no dates, no section from a bare noun without a verb', () => {
    assert.equal(read('posts from 2024'), undefined);
    // "docs in German" names the language but no section.
    assert.deepEqual(read('docs in German'), { scrapeOptions: { location: { languages: ['de'] } } });
  });
});

describe('the options schema and the request', () => {
  it('refuses what a crawl cannot take', () => {
    for (const options of [
      { includePaths: ['(unclosed'] },
      { excludePaths: [''] },
      { limit: 0 },
      { maxDiscoveryDepth: 101 },
      { delay: -1 },
      { sitemap: 'sometimes' },
      { scrapeOptions: { formats: ['json'] } },
      { crawlWholeInternet: true },
    ])
      assert.equal(crawlOptionsSchema.safeParse(options).success, false, JSON.stringify(options));
  });

  it('takes a prompt of 1 to 10,000 characters, trimmed, and a URL without a scheme as http', () => {
    assert.deepEqual(
      previewRequestSchema.parse({ url: 'fernhill.example/a', prompt: '  only the guides ', origin: 'sdk' }),
      {
        url: 'http://fernhill.example/a',
        prompt: 'only the guides',
      },
    );
    assert.equal(previewRequestSchema.safeParse({ url: start, prompt: 'x'.repeat(10_000) }).success, true);
    const messages = (body: unknown) => {
      const parsed = previewRequestSchema.safeParse(body);
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    assert.deepEqual(messages({ url: start, prompt: '   ' }), ['prompt: must not be empty']);
    assert.deepEqual(messages({ url: start, prompt: 'x'.repeat(10_001) }), [
      'prompt: must be at most 10000 characters',
    ]);
    assert.deepEqual(messages({ url: start, prompt: 7 }), ['prompt: must be a string']);
    assert.deepEqual(messages({ url: 'ftp://fernhill.example/', prompt: 'x' }), [
      'url: must be an http or https URL',
    ]);
  });
});

/** A model that answers from a script, and keeps what it was sent. */
function scriptedModel(answers: string[]) {
  const requests: ChatRequest[] = [];
  const model: LanguageModel = {
    settings: { zeroRetention: false, maxInputTokens: 8000 },
    accepts: { json_schema: true, json_object: true },
    complete: async (request) => {
      requests.push(request);
      const answer = answers.shift();
      if (answer === undefined) throw new ModelError('no more answers');
      return answer;
    },
  };
  return { model, requests };
}

describe('previewCrawlOptions: the model reads the prompt beside the site', () => {
  const signal = new AbortController().signal;

  it("sends the prompt, the start URL and the site's URLs as data, and returns the checked options", async () => {
    const { model, requests } = scriptedModel(['{"includePaths": ["^/guides/.*"], "limit": 20}']);
    const options = await previewCrawlOptions(model, start, 'the guides, 20 pages', site, signal);
    assert.deepEqual(options, { includePaths: ['^/guides/.*'], limit: 20 });
    assert.equal(requests.length, 1);
    const [system, user] = requests[0]!.messages;
    const open = /<<<DOCUMENT ([0-9a-f]+)>>>/.exec(user!.content);
    assert.ok(open, user!.content);
    assert.ok(system!.content.includes(open[0]), 'the system message names the markers');
    assert.ok(user!.content.includes(`The crawl starts at ${start}.`));
    assert.ok(user!.content.includes('The request: the guides, 20 pages'));
    assert.ok(user!.content.includes(`${open[0]}\n${site.join('\n')}\n<<<END DOCUMENT ${open[1]}>>>`));
  });

  it('sends a wrong answer back once with what was wrong, and takes the corrected one', async () => {
    const { model, requests } = scriptedModel(['{"limit": 0}', '{"limit": 5}']);
    assert.deepEqual(await previewCrawlOptions(model, start, 'five pages', site, signal), { limit: 5 });
    assert.equal(requests.length, 2);
    const retry = requests[1]!.messages.at(-1)!.content;
    assert.match(retry, /^That answer does not match the schema: limit: /);
  });

  it('fails with a ModelError when the answer is wrong twice', async () => {
    const { model } = scriptedModel(['{"sitemap": "sometimes"}', 'not json at all']);
    await assert.rejects(previewCrawlOptions(model, start, 'x', site, signal), ModelError);
  });
});

describe('siteStructure: the URLs of a sitemap and a start page', () => {
  let server: http.Server;
  let base = '';
  /** What the loopback site serves, per test. */
  let pages: Record<string, [number, string]> = {};

  before(async () => {
    server = http.createServer((req, res) => {
      const [status, body] = pages[req.url ?? ''] ?? [404, 'not found'];
      res.writeHead(status, { 'content-type': req.url?.endsWith('.xml') ? 'application/xml' : 'text/html' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const context = (allowed: string[]) => ({
    policy: new NetPolicy(allowed, 'a scrape'),
    hold: new UploadBudget(64 * 1024 * 1024, 64 * 1024 * 1024).open('team'),
    signal: new AbortController().signal,
  });
  const sitemap = (paths: string[]) =>
    `<?xml version="1.0"?><urlset>${paths.map((p) => `<url><loc> ${base}${p} </loc></url>`).join('')}</urlset>`;

  it("reads the sitemap's locations and the start page's links, absolute, without fragments, once each", async () => {
    pages = {
      '/sitemap.xml': [200, sitemap(['/guides/a', '/guides/b'])],
      '/start': [
        200,
        `<a href="/guides/a#top">A</a> <a class=x href='team/'>Team</a> <a href=/shop?x=1&amp;y=2>Shop</a>
         <a href="mailto:desk@fernhill.example">Mail</a> <a href="javascript:void(0)">No</a>
         <a href="https://elsewhere.example/x">Out</a>`,
      ],
    };
    assert.deepEqual(await siteStructure(`${base}/start`, context(['127.0.0.1'])), [
      `${base}/guides/a`,
      `${base}/guides/b`,
      `${base}/team/`,
      `${base}/shop?x=1&y=2`,
      'https://elsewhere.example/x',
    ]);
  });

  it('keeps at most 120 URLs, and does without a missing sitemap or a failing start page', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `/item/${i}`);
    pages = { '/sitemap.xml': [200, sitemap(many)], '/': [500, 'down'] };
    const urls = await siteStructure(`${base}/`, context(['127.0.0.1']));
    assert.deepEqual(
      urls,
      many.slice(0, 120).map((p) => `${base}${p}`),
    );
    pages = { '/': [200, '<a href="/only-link">x</a>'] };
    assert.deepEqual(await siteStructure(`${base}/`, context(['127.0.0.1'])), [`${base}/only-link`]);
  });

  it('refuses a private address the operator has not allowed, with 403', async () => {
    pages = { '/': [200, '<a href="/x">x</a>'] };
    await assert.rejects(siteStructure(`${base}/`, context([])), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 403);
      assert.match(error.message, /^Quire refused to fetch http:\/\/127\.0\.0\.1:\d+\//);
      return true;
    });
  });
});
