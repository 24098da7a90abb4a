import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageFixture } from '../helpers/images.ts';
import { inClusterPass } from '../helpers/mode.ts';
import { corpusFile, parse, startServer, useServer } from '../helpers/server.ts';

const token = 'metrics-token-for-tests';

/** The value of one sample line (`name{labels} value`) in a Prometheus text body, if present. */
function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  const server = useServer({ QUIRE_METRICS_TOKEN: token, QUIRE_WORKERS: '2' });
  const scrape = (authorization?: string) =>
    fetch(`${server().url}/metrics`, { headers: authorization ? { authorization } : {} });

  it('counts requests, conversions, pages and OCR pages, with the pool and sessions', async () => {
    const pdf = corpusFile('pdf/text/doc-multi_page.pdf');
    const pdfAnswer = await parse(server(), { file: pdf });
    assert.equal(pdfAnswer.status, 200);
    const numPages = pdfAnswer.body.data.metadata.numPages as number;
    assert.ok(numPages > 1);
    assert.equal((await parse(server(), { file: imageFixture('scan.png') })).status, 200);
    assert.equal((await parse(server(), { file: { bytes: '<h1>Hi</h1>', filename: 'a.html' } })).status, 200);
    const broken = await parse(server(), { file: { bytes: 'PK\u0003\u0004 not a zip', filename: 'x.docx' } });
    assert.equal(broken.status, 400);

    const res = await scrape(`Bearer ${token}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const body = await res.text();
    assert.ok(
      (sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="200"}') ?? 0) >= 3,
    );
    assert.ok(
      (sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="400"}') ?? 0) >= 1,
    );
    assert.equal(sample(body, 'quire_conversion_duration_seconds_count{format="pdf",outcome="ok"}'), 1);
    assert.equal(sample(body, 'quire_conversion_duration_seconds_count{format="html",outcome="ok"}'), 1);
    assert.equal(sample(body, 'quire_pages_parsed_total{format="pdf"}'), numPages);
    // An image is a page read by OCR; a PDF with a text layer needs none in the default mode.
    assert.equal(sample(body, 'quire_ocr_pages_total{format="png"}'), 1);
    assert.equal(sample(body, 'quire_ocr_pages_total{format="pdf"}'), undefined);
    // The process's own pool: in a cluster the API process converts nothing, its worker does
    // (README, Cluster mode: 0 for api).
    assert.equal(sample(body, 'quire_workers'), inClusterPass ? 0 : 2);
    assert.equal(sample(body, 'quire_workers_busy'), 0);
    assert.equal(sample(body, 'quire_queue_depth'), 0);
    assert.equal(sample(body, 'quire_sessions_active'), 0);
    assert.ok((sample(body, 'quire_queue_wait_seconds_count') ?? 0) >= 4);
    assert.ok((sample(body, 'quire_process_resident_memory_bytes') ?? 0) > 0);
    // Labels are route templates and codes: no upload name or id leaks into them.
    assert.doesNotMatch(body, /doc-multi_page|scan\.png/);
  });

  it('answers 401 without the metrics token, an API key included', async () => {
    assert.equal((await scrape()).status, 401);
    assert.equal((await scrape(`Bearer ${server().key}`)).status, 401);
    assert.equal((await scrape('Bearer wrong')).status, 401);
  });

  it('is off without a token', async () => {
    const plain = await startServer();
    try {
      const res = await fetch(`${plain.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 404);
    } finally {
      await plain.stop();
    }
  });
});
