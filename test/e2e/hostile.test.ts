import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
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

/**
 * What only a server process shows: an upload refused while it streams in over a socket, and a
 * conversion that runs its worker process out of memory. The rest of the hostile uploads are
 * tested in-process (test/http/hostile-uploads.test.ts, hostile-generated.test.ts).
 */
describe('hostile uploads against a server process', () => {
  // One worker with a small heap: the table page below outgrows it.
  const server = useServer({ QUIRE_WORKER_HEAP_MB: '64', QUIRE_WORKERS: '1', QUIRE_SPARE_WORKERS: '2' });

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

  it('a conversion that exhausts its memory fails alone with a 4xx, and the next request is served', async () => {
    const html = `<html><body>${'<table><tr><td>cell <b>x</b></td><td>y</td></tr></table>'.repeat(60_000)}</body></html>`;
    const { status, body } = await parse(server(), {
      file: { bytes: html, filename: 'big.html' },
      options: { timeout: 120_000 },
    });
    assert.equal(status, 400);
    assert.equal(body.code, 'RESOURCE_LIMIT');
    assert.match(body.error, /more memory/);
    const next = await parse(server(), {
      file: { bytes: '<p>still serving</p>', filename: 'a.html' },
      options: { timeout: 120_000 },
    });
    assert.equal(next.status, 200);
    assert.match(next.body.data.markdown, /still serving/);
  });
});
