import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type InProcessApp, useApp } from '../helpers/app.ts';
import { imageFixture } from '../helpers/images.ts';
import { corpusFile, parse } from '../helpers/server.ts';

const token = 'metrics-token-for-tests';

/** The value of one sample line (`name{labels} value`) in a Prometheus text body, if present. */
function sample(body: string, series: string): number | undefined {
  const line = body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** How many conversions of `format` ended with `outcome`, by the duration histogram's count. */
const outcomes = (body: string, format: string, outcome: string) =>
  sample(body, `quire_conversion_duration_seconds_count{format="${format}",outcome="${outcome}"}`);

async function scrape(server: InProcessApp, authorization?: string): Promise<Response> {
  return server.fetch('/metrics', { headers: authorization ? { authorization } : {} });
}

async function metricsText(server: InProcessApp): Promise<string> {
  const res = await scrape(server, `Bearer ${token}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text();
}

/**
 * README, Metrics: `quire_conversion_duration_seconds` is labelled by outcome, "`ok`, the
 * refusal's code, or `aborted`, `queue-full`, `worker-died`". Each is caused here for real and
 * found under its label.
 */
describe('GET /metrics', () => {
  // One worker and one queue place, so that the queue can be filled (README, QUIRE_QUEUE_SIZE).
  const server = useApp({
    QUIRE_METRICS_TOKEN: token,
    QUIRE_WORKERS: '1',
    QUIRE_QUEUE_SIZE: '1',
    QUIRE_TEAM_CONCURRENCY: '8',
  });

  it('answers 401 without the metrics token, an API key included', async () => {
    for (const authorization of [undefined, `Bearer ${server().key}`, 'Bearer wrong']) {
      const res = await scrape(server(), authorization);
      assert.equal(res.status, 401, authorization);
      assert.equal(((await res.json()) as Record<string, any>).success, false);
    }
  });

  it('counts requests, conversions (ok and the refusal code), pages and OCR pages, with the pool and sessions', async () => {
    const pdf = corpusFile('pdf/text/doc-multi_page.pdf');
    const pdfAnswer = await parse(server(), { file: pdf });
    assert.equal(pdfAnswer.status, 200, JSON.stringify(pdfAnswer.body));
    const numPages = pdfAnswer.body.data.metadata.numPages as number;
    assert.ok(numPages > 1);
    assert.equal((await parse(server(), { file: imageFixture('scan.png') })).status, 200);
    assert.equal((await parse(server(), { file: { bytes: '<h1>Hi</h1>', filename: 'a.html' } })).status, 200);
    const broken = await parse(server(), { file: { bytes: 'PK\u0003\u0004 not a zip', filename: 'x.docx' } });
    assert.equal(broken.status, 400, JSON.stringify(broken.body));
    assert.equal(broken.body.code, 'UNPARSABLE_DOCUMENT');

    const body = await metricsText(server());
    assert.equal(sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="200"}'), 3);
    assert.equal(sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="400"}'), 1);
    assert.equal(outcomes(body, 'pdf', 'ok'), 1);
    assert.equal(outcomes(body, 'png', 'ok'), 1);
    assert.equal(outcomes(body, 'html', 'ok'), 1);
    // A refusal is counted under its own code.
    assert.equal(outcomes(body, 'docx', 'UNPARSABLE_DOCUMENT'), 1);
    assert.equal(sample(body, 'quire_pages_parsed_total{format="pdf"}'), numPages);
    // An image is a page read by OCR; a PDF with a text layer needs none in the default mode.
    assert.equal(sample(body, 'quire_ocr_pages_total{format="png"}'), 1);
    assert.equal(sample(body, 'quire_ocr_pages_total{format="pdf"}'), undefined);
    assert.equal(sample(body, 'quire_workers'), 1);
    assert.equal(sample(body, 'quire_workers_busy'), 0);
    assert.equal(sample(body, 'quire_queue_depth'), 0);
    assert.equal(sample(body, 'quire_sessions_active'), 0);
    assert.equal(sample(body, 'quire_worker_restarts_total'), 0);
    assert.equal(sample(body, 'quire_queue_wait_seconds_count'), 4);
    assert.ok((sample(body, 'quire_process_resident_memory_bytes') ?? 0) > 0);
    // Labels are route templates and codes: no upload name or id leaks into them.
    assert.doesNotMatch(body, /doc-multi_page|scan\.png|x\.docx/);
  });

  it('answers 429 with Retry-After once the workers and QUIRE_QUEUE_SIZE waiting conversions are taken, counting queue-full and aborted', async () => {
    // One worker and one queue place: of three conversions sent at once, one runs, one waits
    // and one is refused, provided none ends before all three are in. Each OCRs every page of
    // the 352-page book (minutes of Tesseract) under a 10 s timeout, so none can finish, and
    // all three uploads need only be read within those 10 s. The two not refused end on
    // their own: 408 at their timeout (the running one's worker is stopped, the waiting one
    // leaves the queue). No order is assumed: whichever arrives last is refused.
    const book = corpusFile('pdf/big/pjs-freeculture-352p.pdf');
    const options = { parsers: [{ type: 'pdf', mode: 'ocr' }], timeout: 10_000 };
    const answers = await Promise.all([0, 1, 2].map(() => parse(server(), { file: book, options })));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [408, 408, 429], JSON.stringify(answers.map((a) => [a.status, a.body])));
    const refused = answers.find((a) => a.status === 429)!;
    assert.deepEqual(refused.body, {
      error: 'Too many documents are waiting for conversion. Please retry later.',
    });
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    for (const timedOut of answers.filter((a) => a.status === 408)) {
      assert.equal(timedOut.body.code, 'SCRAPE_TIMEOUT');
      assert.equal(timedOut.body.error, 'The parse did not finish within its timeout of 10000 ms.');
    }
    const body = await metricsText(server());
    assert.equal(outcomes(body, 'pdf', 'queue-full'), 1);
    assert.equal(outcomes(body, 'pdf', 'aborted'), 2);
    // The running conversion's worker was stopped and replaced (and the waiting one's, if it
    // had started by then).
    assert.ok((sample(body, 'quire_worker_restarts_total') ?? 0) >= 1, body);
    assert.equal(sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="429"}'), 1);
    assert.equal(sample(body, 'quire_http_requests_total{route="/v2/parse",method="POST",status="408"}'), 2);
    // The queue is free again: the next parse is served.
    const after = await parse(server(), { file: { bytes: '<p>served</p>', filename: 'after.html' } });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.data.markdown, 'served');
  });
});

describe('GET /metrics: a conversion that exhausts its memory', () => {
  const server = useApp({ QUIRE_METRICS_TOKEN: token, QUIRE_WORKER_HEAP_MB: '64', QUIRE_WORKERS: '1' });

  it('is counted as worker-died, and its worker as restarted', async () => {
    const html = `<html><body>${'<table><tr><td>cell <b>x</b></td><td>y</td></tr></table>'.repeat(60_000)}</body></html>`;
    // Room for a loaded machine, not a claim: the 400 must come from the worker's death.
    const { status, body } = await parse(server(), {
      file: { bytes: html, filename: 'big.html' },
      options: { timeout: 120_000 },
    });
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /more memory/);
    const text = await metricsText(server());
    assert.equal(outcomes(text, 'html', 'worker-died'), 1);
    assert.equal(sample(text, 'quire_worker_restarts_total'), 1);
    const next = await parse(server(), { file: { bytes: '<p>still serving</p>', filename: 'a.html' } });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(outcomes(await metricsText(server()), 'html', 'ok'), 1);
  });
});
