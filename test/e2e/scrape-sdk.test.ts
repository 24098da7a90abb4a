import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Firecrawl from '@mendable/firecrawl-js';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { PythonSdkClient } from '../helpers/python-client.ts';
import { appShell, article } from '../helpers/scrape-pages.ts';
import { type RunningServer, startServer } from '../helpers/server.ts';
import { Site } from '../helpers/site.ts';

/**
 * Scrape and the crawl preview through the SDKs, which need a real server's address: the JS
 * SDK unchanged, and requests shaped as the Python SDK sends them. In the cluster pass this is
 * also where a scrape, plain and rendered, crosses the api and worker processes. The contract
 * itself is tested in-process (test/http/scrape*.test.ts, crawl-params-preview.test.ts).
 */
describe('scrape through the SDKs', () => {
  const site = new Site();
  let fake: FakeLlm;
  let server: RunningServer;
  before(async () => {
    await site.listen();
    site
      .redirect('/article', '/blog/2024/tides.html', 301)
      .serve('/blog/2024/tides.html', 'text/html; charset=utf-8', article())
      .page('/app', appShell)
      .serve('/api/text', 'text/plain', 'Fetched after load.')
      .serve('/', 'text/html', '<a href="/docs/start">Docs</a> <a href=\'/blog/\'>Blog</a>');
    // The model first: the server reads its address when it starts.
    fake = await startFakeLlm();
    server = await startServer({
      QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
      QUIRE_LLM_BASE_URL: fake.url,
      QUIRE_LLM_MODEL: 'fake-model',
    });
  });
  after(async () => {
    await server?.stop();
    await fake?.close();
    await site.close();
  });

  it("works through the JS SDK's scrape() unchanged", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const doc = await client.scrape(`${site.url}/article`, {
      formats: [
        'markdown',
        'links',
        { type: 'attributes', selectors: [{ selector: 'article a', attribute: 'href' }] },
      ],
      timeout: 120_000,
    });
    assert.match(doc.markdown ?? '', /^# How tides are predicted/);
    assert.deepEqual(doc.attributes, [
      {
        selector: 'article a',
        attribute: 'href',
        values: [`${site.url}/blog/2024/constituents.html`, `${site.url}/blog/data/gauges.csv`],
      },
    ]);
    assert.equal(doc.metadata?.url, `${site.url}/blog/2024/tides.html`);
    assert.equal(doc.metadata?.statusCode, 200);
  });

  it("tracks a page's changes through the JS SDK's scrape()", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const scrape = () =>
      client.scrape(`${site.url}/article`, {
        formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'], tag: 'sdk' }],
        timeout: 120_000,
      });
    const first = await scrape();
    assert.equal((first.changeTracking as { changeStatus: string }).changeStatus, 'new');
    const second = (await scrape()).changeTracking as {
      changeStatus: string;
      previousScrapeAt: string;
      diff: null;
    };
    assert.equal(second.changeStatus, 'same');
    assert.equal(second.diff, null);
    assert.match(second.previousScrapeAt, /^\d{4}-\d\d-\d\dT/);
  });

  it('answers question and highlights through the model, and by BM25 when the model fails', async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const doc = await client.scrape(`${site.url}/article`, {
      formats: [
        'markdown',
        { type: 'question', question: 'How are tides predicted?' },
        { type: 'highlights', query: 'tides' },
      ],
      timeout: 120_000,
    });
    assert.match(doc.answer ?? '', /^Answer: /);
    // The fake picks passage 1 of those it was offered: the page's first, verbatim.
    assert.equal(doc.highlights, '# How tides are predicted');
    assert.equal(doc.warning, undefined);
    // The deprecated query format, in directQuote mode: the model's pick, as answer.
    const quoted = await client.scrape(`${site.url}/article`, {
      formats: ['markdown', { type: 'query', prompt: 'tides', mode: 'directQuote' }],
      timeout: 120_000,
    });
    assert.equal(quoted.answer, '# How tides are predicted');

    site.page('/failing', '<p>Ferries leave at noon fake-fail.</p><p>Tickets are sold on board.</p>');
    const failed = await client.scrape(`${site.url}/failing`, {
      formats: ['markdown', { type: 'question', question: 'When do ferries leave?' }],
      timeout: 120_000,
    });
    assert.equal(failed.answer, 'Ferries leave at noon fake-fail.');
    assert.match(failed.warning ?? '', /question: the language model failed \(the model server answered 500/);
  });

  it("reads a product page's product through the JS SDK's scrape()", async () => {
    site.page(
      '/stool',
      '<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Oak Stool</h1><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><span itemprop="price">85.00</span><link itemprop="availability" href="https://schema.org/OutOfStock"></div></div>',
    );
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const doc = await client.scrape(`${site.url}/stool`, {
      formats: ['markdown', 'product'],
      timeout: 120_000,
    });
    assert.equal(doc.product?.title, 'Oak Stool');
    assert.deepEqual(doc.product?.variants, [
      { price: { amount: 85, currency: 'GBP' }, availability: { inStock: false, text: 'Out of stock' } },
    ]);
  });

  it("tracks a page's values through the model with the JS SDK: changeTracking json mode", async () => {
    let fare = '12.50';
    site.on('/fares', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<main><h1>Fares</h1><p>Route: Brest to Ouessant</p><p>Adult fare: ${fare}</p></main>`),
    );
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const schema = {
      type: 'object',
      properties: { route: { type: 'string' }, adultFare: { type: 'number' } },
    };
    const track = (format: Record<string, unknown>) =>
      client.scrape(`${site.url}/fares`, {
        formats: ['markdown', { type: 'changeTracking', modes: ['json'], tag: 'sdk', ...format } as never],
        timeout: 120_000,
      });
    const first = await track({ schema });
    assert.equal((first.changeTracking as { changeStatus: string }).changeStatus, 'new');
    fare = '14.00';
    const second = await track({ schema });
    assert.deepEqual((second.changeTracking as { json: unknown }).json, {
      adultFare: { previous: 12.5, current: 14 },
    });
    // Without a schema the model reads both versions at once and says what changed.
    fare = '15.00';
    const third = await track({ prompt: 'What happened to the fares?' });
    const { json } = third.changeTracking as { json: { request: string } };
    assert.equal(json.request, 'What happened to the fares?');
  });

  it("reads a menu page's menu through the JS SDK's scrape()", async () => {
    site.page(
      '/menu',
      '<h1>Menu</h1><h2>Starters</h2><p>Crab cakes £8.50</p><p>Leek soup (V) £6.50</p><h2>Desserts</h2><p>Apple tart £6.00</p>',
    );
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const doc = await client.scrape(`${site.url}/menu`, { formats: ['markdown', 'menu'], timeout: 120_000 });
    assert.equal(doc.menu?.isMenu, true);
    assert.equal(doc.menu?.currency, 'GBP');
    assert.deepEqual(
      doc.menu?.sections.map((s) => [s.name, s.items.map((i) => i.name)]),
      [
        ['Starters', ['Crab cakes', 'Leek soup (V)']],
        ['Desserts', ['Apple tart']],
      ],
    );
  });

  it("works through the Python SDK's request shape (origin injected, JSON on every call)", async () => {
    const py = new PythonSdkClient(server.url, server.key);
    const reply = await py.post('/v2/scrape', {
      url: `${site.url}/article`,
      formats: ['markdown'],
      timeout: 120_000,
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.match(reply.body.data.markdown, /harmonic constituents/);
  });

  it("works through the JS SDK's scrape() with a rendered page, a screenshot and its branding", {
    timeout: 280_000,
  }, async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const doc = await client.scrape(`${site.url}/app`, {
      formats: ['markdown', 'screenshot', 'branding'],
      // A browser on a loaded machine takes tens of seconds to start: only a wrong answer fails.
      timeout: 240_000,
    });
    assert.match(doc.markdown ?? '', /Rendered harbour/);
    assert.match(doc.markdown ?? '', /Fetched after load\./);
    assert.ok(doc.screenshot?.startsWith(`${server.url}/scrape/captures/`), doc.screenshot);
    const png = await fetch(doc.screenshot!);
    assert.equal(png.headers.get('content-type'), 'image/png');
    assert.equal(doc.branding?.colorScheme, 'light');
    assert.equal(doc.branding?.colors?.background, '#FFFFFF');
    assert.equal(typeof doc.branding?.typography?.fontFamilies?.primary, 'string');
  });

  it("works through the JS SDK's crawlParamsPreview()", async () => {
    const client = new Firecrawl({ apiKey: server.key, apiUrl: server.url });
    const data = await client.crawlParamsPreview(`${site.url}/`, 'only the blog');
    assert.equal((data as { url?: string }).url, `${site.url}/`);
  });
});
