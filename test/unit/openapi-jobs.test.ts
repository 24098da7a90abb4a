import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import {
  batchSchema,
  crawlBodySchema,
  mapBodySchema,
  validateBatchBody,
  validateCrawlBody,
  validateMapBody,
} from '../../src/jobs/job-requests.ts';
import { limits } from '../../src/limits.ts';

/**
 * The OpenAPI document's crawl, batch scrape and map entries: request schemas generated from the
 * validators, the status body, errors and watcher, and code samples whose bodies validate.
 */

/** A JSON document, walked by key. */
type Json = any;
const doc: Json = JSON.parse(JSON.stringify(buildOpenApiDocument()));
const schemas = doc.components.schemas;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonSchema = (response: Json) => response.content['application/json'].schema;
const sample = (operation: Json, label: string): string =>
  operation['x-codeSamples'].find((s: { label: string }) => s.label === label).source;
/** The JSON body a curl sample sends with `-d '…'`. */
const curlBody = (operation: Json): unknown =>
  JSON.parse(/-d '([^']*)'/.exec(sample(operation, 'curl'))![1]!);

const jobOperations: [string, string, string][] = [
  ['/v2/crawl', 'post', 'crawlUrls'],
  ['/v2/crawl/active', 'get', 'getActiveCrawls'],
  ['/v2/crawl/{id}', 'get', 'getCrawlStatus'],
  ['/v2/crawl/{id}', 'delete', 'cancelCrawl'],
  ['/v2/crawl/{id}/errors', 'get', 'getCrawlErrors'],
  ['/v2/batch/scrape', 'post', 'scrapeAndExtractFromUrls'],
  ['/v2/batch/scrape/{id}', 'get', 'getBatchScrapeStatus'],
  ['/v2/batch/scrape/{id}', 'delete', 'cancelBatchScrape'],
  ['/v2/batch/scrape/{id}/errors', 'get', 'getBatchScrapeErrors'],
  ['/v2/map', 'post', 'mapUrls'],
];

describe('the OpenAPI document: crawl, batch scrape and map', () => {
  it('names each operation as the Firecrawl SDKs do', () => {
    for (const [path, method, id] of jobOperations) assert.equal(doc.paths[path]?.[method]?.operationId, id);
  });

  it('takes the crawl and map bodies from the schemas that validate them', () => {
    const crawl = schemas.CrawlRequest;
    assert.deepEqual(Object.keys(crawl.properties).sort(), Object.keys(crawlBodySchema.shape).sort());
    assert.deepEqual([crawl.required, crawl.additionalProperties], [['url'], false]);
    assert.equal(crawl.properties.limit.maximum, limits.crawlMaxPages);
    assert.deepEqual(crawl.properties.sitemap.enum, ['include', 'skip', 'only']);
    assert.deepEqual(crawl.properties.scrapeOptions.allOf, [ref('ScrapeOptions')]);
    assert.equal(crawl.properties.scrapeOptions.unevaluatedProperties, false);
    assert.deepEqual(crawl.properties.webhook, ref('Webhook'));
    assert.deepEqual(jsonSchema(doc.paths['/v2/crawl'].post.requestBody), ref('CrawlRequest'));

    const map = schemas.MapRequest;
    assert.deepEqual(Object.keys(map.properties).sort(), Object.keys(mapBodySchema.shape).sort());
    assert.equal(map.properties.limit.maximum, limits.mapMaxLinks);
    assert.equal(map.additionalProperties, false);
    assert.deepEqual(jsonSchema(doc.paths['/v2/map'].post.requestBody), ref('MapRequest'));
  });

  it('describes the webhook as a URL or an object, as its preprocessing accepts', () => {
    const [url, object] = schemas.Webhook.anyOf;
    assert.equal(url.type, 'string');
    assert.equal(url.maxLength, limits.scrapeUrlChars);
    assert.deepEqual(object.required, ['url']);
    assert.deepEqual(Object.keys(object.properties).sort(), ['events', 'headers', 'metadata', 'url']);
    assert.match('crawl.page', new RegExp(object.properties.events.items.pattern));
  });

  it('composes the batch body from its own keys and the scrape options without url', () => {
    const batch = schemas.BatchScrapeRequest;
    const [own, options] = batch.allOf;
    assert.deepEqual(Object.keys(own.properties).sort(), Object.keys(batchSchema.shape).sort());
    assert.deepEqual(own.required, ['urls']);
    assert.equal(own.properties.urls.maxItems, limits.batchMaxUrls);
    assert.deepEqual(own.properties.webhook, ref('Webhook'));
    assert.deepEqual(options, ref('ScrapeOptions'));
    assert.equal(batch.unevaluatedProperties, false);
    // Open where it is defined, since allOf with a closed schema would refuse `urls`.
    const scrape = schemas.ScrapeOptions;
    assert.equal(scrape.additionalProperties, undefined);
    assert.deepEqual(
      Object.keys(scrape.properties).sort(),
      Object.keys(schemas.ScrapeRequest.properties)
        .filter((k) => k !== 'url')
        .sort(),
    );
    assert.ok(scrape.properties.formats.items.anyOf.some((a: Json) => a.enum?.includes('markdown')));
    assert.deepEqual(jsonSchema(doc.paths['/v2/batch/scrape'].post.requestBody), ref('BatchScrapeRequest'));
  });

  it("answers a job's status with the scrape's Document schema, a page at a time, and describes its watcher", () => {
    for (const path of ['/v2/crawl/{id}', '/v2/batch/scrape/{id}']) {
      const status = doc.paths[path].get;
      assert.deepEqual(jsonSchema(status.responses['200']), ref('JobStatus'));
      assert.deepEqual(Object.keys(status.responses).sort(), ['200', '400', '401', '404']);
      const limit = status.parameters.find((p: Json) => p.name === 'limit');
      assert.deepEqual(
        [limit.in, limit.schema.maximum, limit.schema.default],
        ['query', limits.jobStatusMaxPage, limits.jobStatusPage],
      );
      assert.ok(status.parameters.some((p: Json) => p.name === 'skip' && p.in === 'query'));
      assert.match(status.description, /WebSocket.*catchup.*close 1000/s);
      const cancel = doc.paths[path].delete;
      assert.equal(jsonSchema(cancel.responses['200']).properties.status.const, 'cancelled');
      assert.equal(cancel.responses['409'].description, 'Crawl is already completed');
      assert.deepEqual(jsonSchema(doc.paths[`${path}/errors`].get.responses['200']), ref('JobErrors'));
    }
    assert.deepEqual(schemas.JobStatus.properties.data.items, ref('Document'));
    assert.deepEqual(
      jsonSchema(doc.paths['/v2/scrape'].post.responses['200']).properties.data,
      ref('Document'),
    );
    assert.ok(schemas.Document.properties.pages);
    assert.deepEqual(schemas.JobErrors.required, ['errors', 'robotsBlocked']);
    assert.match(doc.paths['/v2/crawl/active'].get.description, /\/v2\/crawl\/ongoing/);
    assert.deepEqual(jsonSchema(doc.paths['/v2/map'].post.responses['408']).properties.code.examples, [
      'MAP_TIMEOUT',
    ]);
  });

  it('gives each new operation curl, JS SDK and Python SDK samples; the POST bodies validate', () => {
    for (const [path, method] of jobOperations) {
      const labels = doc.paths[path][method]['x-codeSamples'].map((s: { label: string }) => s.label);
      assert.deepEqual(labels, ['curl', 'JS SDK', 'Python SDK'], `${method} ${path}`);
    }
    const crawl = doc.paths['/v2/crawl'].post;
    assert.equal(validateCrawlBody(curlBody(crawl)).url, 'https://example.com');
    assert.match(sample(crawl, 'JS SDK'), /firecrawl\.crawl\('https:\/\/example\.com'/);
    assert.match(sample(crawl, 'Python SDK'), /firecrawl\.crawl\("https:\/\/example\.com"/);
    const batch = doc.paths['/v2/batch/scrape'].post;
    assert.equal(validateBatchBody(curlBody(batch)).urls.length, 2);
    assert.match(sample(batch, 'JS SDK'), /firecrawl\.batchScrape\(\[/);
    assert.match(sample(batch, 'Python SDK'), /firecrawl\.batch_scrape\(/);
    const map = doc.paths['/v2/map'].post;
    assert.equal(validateMapBody(curlBody(map)).limit, 100);
    assert.match(sample(map, 'JS SDK'), /firecrawl\.map\('https:\/\/example\.com'/);
    assert.match(sample(map, 'Python SDK'), /firecrawl\.map\("https:\/\/example\.com"/);
  });
});
