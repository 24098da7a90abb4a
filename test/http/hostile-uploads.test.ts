import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { parse } from '../helpers/server.ts';

const MiB = 1024 * 1024;

/**
 * Hostile and heavy uploads in-process: the API's limits and its pool of conversion processes
 * (real children of the test's process). What needs a server process (an upload streamed over a
 * socket, a worker killed by its memory limit) is in test/e2e/hostile.test.ts.
 */
describe('hostile and heavy uploads', () => {
  const app = useApp({ QUIRE_WORKERS: '2' });

  it('refuses a 60 MB upload with a declared length', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(60 * MiB).fill(0x41)]), 'big.csv');
    // Encoded here, so that the request carries the body's length up front.
    const encoded = new Request('http://quire.test/', { method: 'POST', body: form });
    const res = await app().fetch('/v2/parse', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app().key}`,
        'content-type': encoded.headers.get('content-type')!,
      },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    const body = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 400);
    assert.equal(body.error, 'Uploaded file exceeds maximum size of 50MB.');
  });

  it('refuses a truncated multipart body', async () => {
    const boundary = 'AbC';
    const res = await app().fetch('/v2/parse', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${app().key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.html"\r\n\r\n<p>half a page`,
      ),
    });
    const body = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 400);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.match(body.error, /Invalid multipart form-data request/);
  });

  it('converts a 10,000-deep nested page within its timeout, keeping its text', async () => {
    const html = `<html><body>${'<div>'.repeat(10_000)}deep text${'</div>'.repeat(10_000)}<p>after</p></body></html>`;
    // Bounded by the request's own timeout, not by the test's clock: a conversion that ran away
    // on the depth would end in a 408.
    const { status, body } = await parse(app(), {
      file: { bytes: html, filename: 'deep.html' },
      options: { timeout: 60_000 },
    });
    assert.equal(status, 200, JSON.stringify(body));
    assert.match(body.data.markdown, /deep text/);
    assert.match(body.data.markdown, /after/);
  });

  it('refuses 50 MB of binary junk with a clear 4xx', async () => {
    const junk = new Uint8Array(50 * MiB - 1024);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 2654435761) >>> 24;
    const { status, body } = await parse(app(), { file: { bytes: junk, filename: 'junk.html' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'UNSUPPORTED_FILE_TYPE');
  });

  it('gives 408 SCRAPE_TIMEOUT past the timeout, and keeps serving others meanwhile', async () => {
    // A thousand pages to OCR: no machine reads them within the second the timeout allows.
    const heavy = parse(app(), {
      file: { bytes: pagesToRecognise(1000), filename: 'heavy.pdf' },
      options: ocrWithin(1000),
    });
    const light = await parse(app(), {
      file: { bytes: '<h1>Still here</h1>', filename: 'light.html' },
      options: { timeout: 120_000 },
    });
    assert.equal(light.status, 200);
    assert.match(light.body.data.markdown, /Still here/);
    const { status, body } = await heavy;
    assert.equal(status, 408, JSON.stringify(body).slice(0, 300));
    assert.equal(body.code, 'SCRAPE_TIMEOUT');
    assert.match(body.error, /1000 ms/);
    const after = await parse(app(), {
      file: { bytes: '<p>next</p>', filename: 'n.html' },
      options: { timeout: 120_000 },
    });
    assert.equal(after.status, 200);
  });
});
