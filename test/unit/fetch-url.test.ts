import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiError } from '../../src/errors.ts';
import { UploadBudget } from '../../src/quota/upload-budget.ts';
import { fetchUrl } from '../../src/scrape/fetch-url.ts';
import type { ResolveAll } from '../../src/scrape/vetted-address.ts';
import { NetPolicy } from '../../src/sessions/net-policy.ts';
import { Site } from '../helpers/site.ts';

/** fetchUrl alone, with name resolution injected: what a scrape connects to, and what it refuses. */
describe('the fetcher and name resolution', () => {
  const site = new Site();
  before(async () => {
    await site
      .on('/echo', (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(req.headers.host))
      .listen();
  });
  after(() => site.close());

  const settings = { headers: {}, acceptLanguage: undefined, skipTlsVerification: true };
  const context = (policy: NetPolicy, resolveAll: ResolveAll) => ({
    policy,
    resolveAll,
    hold: new UploadBudget(2 ** 30, 2 ** 30).open('team'),
    signal: new AbortController().signal,
  });
  const port = () => new URL(site.url).port;

  it('resolves a name once per hop and connects to that address (node:http does not look it up again)', async () => {
    let lookups = 0;
    const resolveAll: ResolveAll = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const page = await fetchUrl(
      `http://allowed.test:${port()}/echo`,
      settings,
      context(new NetPolicy(['allowed.test'], 'a scrape'), resolveAll),
    );
    assert.equal(page.status, 200);
    assert.equal(page.bytes.toString(), `allowed.test:${port()}`);
    assert.equal(lookups, 1);
  });

  it('refuses a name with any private address among its records, before connecting', async () => {
    const resolveAll: ResolveAll = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    await assert.rejects(
      fetchUrl('http://mixed.test/', settings, context(new NetPolicy([], 'a scrape'), resolveAll)),
      (error: ApiError) =>
        error.status === 403 &&
        /mixed\.test resolves to 10\.1\.2\.3, .* which a scrape may not reach/.test(error.message),
    );
  });

  it("answers upstream's DNS error when a name does not resolve", async () => {
    const resolveAll: ResolveAll = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await assert.rejects(
      fetchUrl('http://nowhere.invalid/', settings, context(new NetPolicy([], 'a scrape'), resolveAll)),
      (error: ApiError) =>
        error.status === 200 &&
        error.code === 'SCRAPE_DNS_RESOLUTION_ERROR' &&
        /nowhere\.invalid/.test(error.message),
    );
  });
});
