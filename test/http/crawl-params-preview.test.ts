import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InProcessApp, startApp } from '../helpers/app.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { Site } from '../helpers/site.ts';

/**
 * POST /v2/crawl/params-preview in-process, with the fake model (built before the app, which
 * reads its address from the environment). The JS SDK's call is in test/e2e/scrape-sdk.test.ts.
 */
describe('POST /v2/crawl/params-preview', () => {
  const site = new Site();
  let fake: FakeLlm;
  let server: InProcessApp;
  before(async () => {
    await site.listen();
    site
      .serve(
        '/sitemap.xml',
        'application/xml',
        `<?xml version="1.0"?><urlset><url><loc>${site.url}/blog/tides</loc></url><url><loc>${site.url}/careers/</loc></url></urlset>`,
      )
      .serve('/', 'text/html', '<a href="/docs/start">Docs</a> <a href=\'/blog/\'>Blog</a>')
      .serve('/broken/', 'text/html', '<a href="/fake-fail">x</a>')
      .serve('/twice/', 'text/html', '<a href="/fake-invalid-once">x</a>');
    fake = await startFakeLlm();
    server = await startApp({
      QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1',
      QUIRE_LLM_BASE_URL: fake.url,
      QUIRE_LLM_MODEL: 'fake-model',
    });
  });
  after(async () => {
    await server?.close();
    await fake?.close();
    await site.close();
  });

  const preview = async (body: unknown) => {
    const res = await server.fetch('/v2/crawl/params-preview', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("asks the model with the site's URLs and the crawl option schema, and answers the options", async () => {
    const before = fake.requests.length;
    const { status, body } = await preview({
      url: `${site.url}/`,
      prompt: 'only the blog, up to 50 pages',
      origin: 'x',
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body, { success: true, data: { url: `${site.url}/` } });
    const sent = fake.requests[before]!.body;
    const schema = sent.response_format!.json_schema!.schema as { properties: Record<string, unknown> };
    assert.deepEqual(Object.keys(schema.properties).slice(0, 4), [
      'includePaths',
      'excludePaths',
      'maxDiscoveryDepth',
      'limit',
    ]);
    const user = sent.messages.find((m) => m.role === 'user')!.content;
    assert.match(user, /The request: only the blog, up to 50 pages/);
    const listed = user.split('\n');
    for (const path of ['/blog/tides', '/careers/', '/docs/start', '/blog/'])
      assert.ok(listed.includes(`${site.url}${path}`), path);
  });

  it('sends a wrong answer back once; when the model fails the rules read the prompt, else upstream’s 400', async () => {
    const asked = fake.requests.length;
    const retried = await preview({ url: `${site.url}/twice/`, prompt: 'everything' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(fake.requests.length - asked, 2, 'the wrong first answer was sent back once');
    const fallback = await preview({ url: `${site.url}/broken/`, prompt: 'everything' });
    assert.equal(fallback.status, 200, JSON.stringify(fallback.body));
    assert.deepEqual(fallback.body.data, { url: `${site.url}/broken/`, crawlEntireDomain: true });
    assert.match(
      fallback.body.warning,
      /^The language model gave no usable options, so Quire's rule-based reader/,
    );
    const failed = await preview({ url: `${site.url}/broken/`, prompt: 'hello there' });
    assert.deepEqual(
      [failed.status, failed.body],
      [400, { success: false, error: 'Failed to process natural language prompt. Please try rephrasing.' }],
    );
  });

  it('validates the body and refuses private addresses', async () => {
    const missing = await preview({ url: `${site.url}/` });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /^Invalid request parameters: body\.prompt is required/);
    const refused = await preview({ url: `http://127.0.0.2:${new URL(site.url).port}/`, prompt: 'all' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
  });
});
