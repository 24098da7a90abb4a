import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { ocrWithin, pagesToRecognise } from '../helpers/pdf.ts';
import { parse, type RunningServer, useServer } from '../helpers/server.ts';

const MiB = 1024 * 1024;

/** A raw HTTP request, so that malformed bodies go out exactly as written. */
function rawPost(server: RunningServer, headers: Record<string, string>, chunks: Iterable<Buffer>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const url = new URL(`${server.url}/v2/parse`);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          // Answered before the whole body went out (a refusal): stop sending. A connection
          // left open mid-body would hold the server's shutdown until its grace period ends.
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    (async () => {
      for (const chunk of chunks) {
        if (req.destroyed) return;
        if (req.write(chunk)) continue;
        await new Promise((r) => {
          req.once('drain', r);
          req.once('close', r);
        });
      }
      req.end();
    })().catch(reject);
  });
}

describe('hostile and heavy uploads', () => {
  const server = useServer({ QUIRE_WORKERS: '2' });

  it('refuses a 60 MB upload with a declared length', async () => {
    const { status, body } = await parse(server(), {
      file: { bytes: new Uint8Array(60 * MiB).fill(0x41), filename: 'big.csv' },
    });
    assert.equal(status, 400);
    assert.equal(body.error, 'Uploaded file exceeds maximum size of 50MB.');
  });

  it('refuses a 60 MB chunked upload while streaming', async () => {
    const boundary = 'XyZ';
    function* body() {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\n\r\n`,
      );
      const chunk = Buffer.alloc(MiB, 0x41);
      for (let i = 0; i < 60; i++) yield chunk;
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const { status, body: answer } = await rawPost(
      server(),
      { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
      body(),
    );
    assert.equal(status, 400);
    assert.equal(answer.error, 'Uploaded file exceeds maximum size of 50MB.');
  });

  it('refuses a truncated multipart body', async () => {
    const boundary = 'AbC';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.html"\r\n\r\n<p>half a page`;
    const { status, body } = await rawPost(
      server(),
      { 'content-type': `multipart/form-data; boundary=${boundary}` },
      [Buffer.from(head)],
    );
    assert.equal(status, 400);
    assert.equal(body.code, 'BAD_REQUEST');
    assert.match(body.error, /Invalid multipart form-data request/);
  });

  it('converts a 10,000-deep nested page within its timeout, keeping its text', async () => {
    const html = `<html><body>${'<div>'.repeat(10_000)}deep text${'</div>'.repeat(10_000)}<p>after</p></body></html>`;
    // Bounded by the request's own timeout, not by the test's clock: a conversion that ran away
    // on the depth would end in a 408.
    const { status, body } = await parse(server(), {
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
    const { status, body } = await parse(server(), { file: { bytes: junk, filename: 'junk.html' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'UNSUPPORTED_FILE_TYPE');
  });

  it('gives 408 SCRAPE_TIMEOUT past the timeout, and keeps serving others meanwhile', async () => {
    // A thousand pages to OCR: no machine reads them within the second the timeout allows.
    const heavy = parse(server(), {
      file: { bytes: pagesToRecognise(1000), filename: 'heavy.pdf' },
      options: ocrWithin(1000),
    });
    const light = await parse(server(), { file: { bytes: '<h1>Still here</h1>', filename: 'light.html' } });
    assert.equal(light.status, 200);
    assert.match(light.body.data.markdown, /Still here/);
    const { status, body } = await heavy;
    assert.equal(status, 408, JSON.stringify(body).slice(0, 300));
    assert.equal(body.code, 'SCRAPE_TIMEOUT');
    assert.match(body.error, /1000 ms/);
    const after = await parse(server(), { file: { bytes: '<p>next</p>', filename: 'n.html' } });
    assert.equal(after.status, 200);
  });
});

describe('a conversion that exhausts its memory', () => {
  const server = useServer({ QUIRE_WORKER_HEAP_MB: '64', QUIRE_WORKERS: '1' });

  it('fails alone with a 4xx, and the next request is served', async () => {
    const html = `<html><body>${'<table><tr><td>cell <b>x</b></td><td>y</td></tr></table>'.repeat(60_000)}</body></html>`;
    const { status, body } = await parse(server(), { file: { bytes: html, filename: 'big.html' } });
    assert.equal(status, 400);
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /more memory/);
    const next = await parse(server(), { file: { bytes: '<p>still serving</p>', filename: 'a.html' } });
    assert.equal(next.status, 200);
    assert.match(next.body.data.markdown, /still serving/);
  });
});
