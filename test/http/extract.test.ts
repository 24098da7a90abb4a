import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InProcessApp, useApp } from '../helpers/app.ts';
import { type FakeLlm, startFakeLlm } from '../helpers/fake-llm.ts';
import { Site } from '../helpers/site.ts';

/**
 * POST /v2/extract and its status through the HTTP contract in-process, against pages served on
 * loopback: the offline extractor by a schema, the sentences that answer a prompt, the fake
 * model, a site's `/*`, sources, failures and the ids of other jobs.
 */

interface ExtractStatus {
  success: boolean;
  status: string;
  data: unknown;
  error?: string;
  expiresAt: string;
  creditsUsed: number;
  warnings?: string[];
  sources?: Record<string, string[]>;
}

const facts = (lines: string[]) => lines.map((l) => `<p>${l}</p>`).join('');

function buildSite(site: Site, base: () => string) {
  site.page(
    '/about',
    `<h1>About us</h1>${facts(['Company: Harbour Tools', 'Founded: 1987', 'City: Brest'])}`,
  );
  site.page(
    '/history',
    `<h1>History</h1>${facts(['Company: Harbour Tools', 'Founded: 1990', 'Country: France'])}`,
  );
  site.page(
    '/ferry',
    '<h1>Ferry</h1><p>The island has a small museum of old boats. The ferry leaves the harbour at nine every morning. Tickets are sold on board.</p>',
  );
  site.page('/docs/', `<h1>Docs</h1><a href="/docs/tides">Tides</a><a href="/docs/boats">Boats</a>`);
  site.page('/docs/tides', `<h1>Tides</h1>${facts(['Company: Tide Tables Ltd'])}`);
  site.page('/docs/boats', `<h1>Boats</h1>${facts(['Founded: 2001'])}`);
  site.serve('/robots.txt', 'text/plain', `User-agent: *\nSitemap: ${base()}/sitemap.xml\n`);
  site.on('/sitemap.xml', (_req, res) =>
    res
      .writeHead(200, { 'content-type': 'application/xml' })
      .end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base()}/docs/tides</loc></url><url><loc>${base()}/docs/boats</loc></url></urlset>`,
      ),
  );
}

const schema = {
  type: 'object',
  properties: {
    company: { type: 'string' },
    founded: { type: 'integer' },
    city: { type: 'string' },
    country: { type: 'string' },
  },
};

function client(app: () => InProcessApp) {
  const post = (path: string, body: unknown) =>
    app().fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${app().key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const get = (path: string) => app().fetch(path, { headers: { authorization: `Bearer ${app().key}` } });
  /** Starts an extract and reads its status once it has ended (subscribed to its end first). */
  const extract = async (body: unknown): Promise<ExtractStatus & { id: string }> => {
    const from = app().output().length;
    const start = await post('/v2/extract', body);
    const started = (await start.json()) as { success: boolean; id: string; urlTrace: unknown[] };
    assert.equal(start.status, 200, JSON.stringify(started));
    assert.equal(started.success, true);
    assert.deepEqual(started.urlTrace, []);
    await app().waitForOutput(new RegExp(`"job":"${started.id}","status":"\\w+","msg":"job finished"`), from);
    const res = await get(`/v2/extract/${started.id}`);
    assert.equal(res.status, 200);
    return { id: started.id, ...((await res.json()) as ExtractStatus) };
  };
  return { post, get, extract };
}

describe('extract without a language model', () => {
  const site = new Site();
  const app = useApp({ QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info' });
  const { post, get, extract } = client(app);
  before(async () => {
    buildSite(site, () => site.url);
    await site.listen();
  });
  after(() => site.close());

  it('fills a schema from each page offline, merged in the order listed, with sources', async () => {
    const status = await extract({
      urls: [`${site.url}/about`, `${site.url}/history`],
      schema,
      showSources: true,
      origin: 'js-sdk@4.42.0',
    });
    assert.equal(status.success, true);
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.data, {
      company: 'Harbour Tools',
      founded: 1987,
      city: 'Brest',
      country: 'France',
    });
    assert.deepEqual(status.sources, {
      company: [`${site.url}/about`, `${site.url}/history`],
      founded: [`${site.url}/about`],
      city: [`${site.url}/about`],
      country: [`${site.url}/history`],
    });
    assert.equal(status.creditsUsed, 2);
    assert.match(status.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    assert.ok(
      status.warnings?.some((w) => /1 field had different values on different pages/.test(w)),
      JSON.stringify(status.warnings),
    );
  });

  it("maps a site's /* and reads its pages; the pages that fail are named in the warnings", async () => {
    const status = await extract({
      urls: [`${site.url}/docs/*`, `${site.url}/missing-host-page`, 'http://10.255.255.1/private'],
      schema,
      limit: 3,
    });
    assert.equal(status.status, 'completed');
    const data = status.data as Record<string, unknown>;
    assert.equal(data.company, 'Tide Tables Ltd');
    assert.equal(data.founded, 2001);
    assert.equal(site.hits.get('/docs/tides'), 1);
    assert.equal(site.hits.get('/docs/boats'), 1);
    assert.equal(status.sources, undefined);
    assert.ok(
      status.warnings?.some((w) => /1 page could not be read: http:\/\/10\.255\.255\.1\/private/.test(w)),
      JSON.stringify(status.warnings),
    );
  });

  it('answers a prompt without a schema with the sentences that best answer it, saying so', async () => {
    const status = await extract({
      urls: [`${site.url}/ferry`],
      prompt: 'When does the ferry leave the harbour?',
    });
    assert.equal(status.status, 'completed');
    const { answers } = status.data as { answers: string[] };
    assert.equal(answers.length, 1);
    assert.match(answers[0]!, /The ferry leaves the harbour at nine every morning\./);
    assert.doesNotMatch(answers[0]!, /museum/);
    assert.ok(status.warnings?.some((w) => /Without a language model or a schema/.test(w)));
  });

  it('fails, with the first page’s reason, when no page could be read', async () => {
    const status = await extract({ urls: ['http://10.255.255.1/'], schema });
    assert.equal(status.success, false);
    assert.equal(status.status, 'failed');
    assert.deepEqual(status.data, []);
    assert.match(status.error ?? '', /^No page could be read: http:\/\/10\.255\.255\.1\/: /);
  });

  it("keeps extracts and batch scrapes to their own routes, and another team's out", async () => {
    const { id } = await extract({ urls: [`${site.url}/about`], schema });
    assert.equal((await get(`/v2/batch/scrape/${id}`)).status, 404);
    const batch = (await (await post('/v2/batch/scrape', { urls: [`${site.url}/about`] })).json()) as {
      id: string;
    };
    const notExtract = await get(`/v2/extract/${batch.id}`);
    assert.equal(notExtract.status, 404);
    assert.deepEqual(await notExtract.json(), { success: false, error: 'Extract job not found' });
    assert.equal((await get('/v2/extract/not-a-uuid')).status, 400);
  });

  it('refuses bad requests with the field named', async () => {
    const res = await post('/v2/extract', { urls: [`${site.url}/about`], schema: { type: 'nonsense' } });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /body\.schema is not a valid JSON Schema/);
    const zdr = await post('/v2/extract', {
      urls: [`${site.url}/about`],
      schema,
      scrapeOptions: { zeroDataRetention: true },
    });
    assert.equal(zdr.status, 400);
    assert.match(((await zdr.json()) as { error: string }).error, /zeroDataRetention/);
  });
});

describe('extract with a language model', () => {
  const site = new Site();
  let fake: FakeLlm;
  const env: Record<string, string> = { QUIRE_SCRAPE_ALLOWED_HOSTS: '127.0.0.1', QUIRE_LOG_LEVEL: 'info' };
  before(async () => {
    fake = await startFakeLlm();
    Object.assign(env, { QUIRE_LLM_BASE_URL: fake.url, QUIRE_LLM_MODEL: 'fake-model' });
    buildSite(site, () => site.url);
    await site.listen();
  });
  after(async () => {
    await fake.close();
    await site.close();
  });
  const app = useApp(env);
  const { extract } = client(app);

  it('reads each page through the model, the system prompt with the prompt, and merges the answers', async () => {
    const status = await extract({
      urls: [`${site.url}/history`, `${site.url}/about`],
      schema,
      prompt: 'The company facts.',
      systemPrompt: 'You read company pages, marker-system-prompt.',
    });
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.data, {
      company: 'Harbour Tools',
      founded: 1990,
      country: 'France',
      city: 'Brest',
    });
    const sent = fake.requests.filter((r) => JSON.stringify(r.body).includes('marker-system-prompt'));
    assert.equal(sent.length, 2);
  });

  it('asks the model for a prompt without a schema', async () => {
    const status = await extract({ urls: [`${site.url}/ferry`], prompt: 'When does the ferry leave?' });
    assert.equal(status.status, 'completed');
    assert.equal(typeof (status.data as { answer?: unknown }).answer, 'string');
    assert.equal(status.warnings, undefined);
  });
});
