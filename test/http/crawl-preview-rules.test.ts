import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { useApp } from '../helpers/app.ts';

/** A loopback site with a sitemap and a start page, so the reader can name sections by real paths. */
async function site(): Promise<{ url: string; close: () => Promise<void> }> {
  let base = '';
  const server = http.createServer((req, res) => {
    if (req.url === '/sitemap.xml') {
      const locs = ['/documentation/start', '/documentation/api', '/en/blog/hello', '/careers/', '/pricing'];
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><urlset>${locs.map((l) => `<url><loc>${base}${l}</loc></url>`).join('')}</urlset>`,
      );
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<a href="/jobs/editor">Jobs</a> <a href="/support/contact">Support</a>');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: base, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Without a model the answer carries a top-level warning saying so (README, Crawl params preview). */
const warning =
  "No language model is configured, so Quire's rule-based reader read the prompt: it knows common English phrasings only; check the options before crawling.";

/**
 * The route's contract, in-process: the site's URLs read from a loopback site, the options in
 * `data`, the warning that the rules read the prompt, upstream's 400. The reader's own rules are
 * test/unit/crawl-prompt-rules.test.ts's.
 */
describe('POST /v2/crawl/params-preview without a model: the rule-based reader', () => {
  let loopback: Awaited<ReturnType<typeof site>>;
  before(async () => {
    loopback = await site();
  });
  after(async () => {
    await loopback?.close();
  });
  const server = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1' });

  const preview = async (prompt: string) => {
    const res = await server().fetch('/v2/crawl/params-preview', {
      method: 'POST',
      headers: { authorization: `Bearer ${server().key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${loopback.url}/`, prompt }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("names sections by the site's real paths, with a warning that the rules read the prompt", async () => {
    const { status, body } = await preview('Only the docs and the blog, up to 50 pages');
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.data, {
      url: `${loopback.url}/`,
      includePaths: ['^/documentation(?:/.*)?$', '^/en/blog(?:/.*)?$'],
      limit: 50,
    });
    assert.equal(body.success, true);
    assert.equal(body.warning, warning);
  });

  it('reads exclusions, depth, subdomains, the sitemap, delay and formats', async () => {
    const cases: [string, Record<string, unknown>][] = [
      [
        'skip /careers and the job listings; no more than 200',
        { excludePaths: ['^/careers(?:/.*)?$', '^/jobs(?:/.*)?$'], limit: 200 },
      ],
      [
        'two levels deep, include subdomains and ignore the sitemap',
        { maxDiscoveryDepth: 2, allowSubdomains: true, sitemap: 'skip' },
      ],
      [
        'The whole domain, follow external links, wait 2 seconds between requests, dedupe similar URLs',
        { crawlEntireDomain: true, allowExternalLinks: true, delay: 2, deduplicateSimilarURLs: true },
      ],
      [
        'Crawl the support pages in German as markdown and html',
        {
          includePaths: ['^/support(?:/.*)?$'],
          scrapeOptions: { formats: ['markdown', 'html'], location: { languages: ['de'] } },
        },
      ],
    ];
    for (const [prompt, options] of cases) {
      const { status, body } = await preview(prompt);
      assert.equal(status, 200, `${prompt}: ${JSON.stringify(body)}`);
      assert.deepEqual(
        body,
        { success: true, data: { url: `${loopback.url}/`, ...options }, warning },
        prompt,
      );
    }
  });

  it('answers upstream’s 400 for a prompt the rules cannot read', async () => {
    const { status, body } = await preview('hello there, how are you?');
    assert.deepEqual(
      [status, body],
      [400, { success: false, error: 'Failed to process natural language prompt. Please try rephrasing.' }],
    );
  });

  it("works through the JS SDK's crawlParamsPreview(), the warning with the options", async () => {
    // The SDK takes a URL: the in-process app listens on loopback for it.
    await server().app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = server().app.server.server.address() as AddressInfo;
    const client = new Firecrawl({ apiKey: server().key, apiUrl: `http://127.0.0.1:${port}` });
    const data = (await client.crawlParamsPreview(
      `${loopback.url}/`,
      'just /docs, first 10 pages',
    )) as Record<string, unknown>;
    assert.deepEqual(data.includePaths, ['^/docs(?:/.*)?$']);
    assert.equal(data.limit, 10);
    assert.equal(data.warning, warning);
  });
});
