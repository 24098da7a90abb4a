import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { PythonSdkClient } from '../helpers/python-client.ts';
import { useServer } from '../helpers/server.ts';
import { api } from '../helpers/sessions.ts';

const malformed = { success: false, code: 'BAD_REQUEST_INVALID_JSON', error: 'Bad request, malformed JSON' };
const unknownId = '01a20f91-16f2-7233-bea2-13a6e9b4b7e1';

/** Ids of the team's sessions with this status, through the Python client's list call. */
async function listed(py: PythonSdkClient, prefix: string, status: string): Promise<string[]> {
  const reply = await py.get(`${prefix}?status=${status}`);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.sessions.map((s: { id: string }) => s.id);
}

describe('the Python SDK’s requests', () => {
  // No conversions here: one worker process (the least there is) rather than one per core.
  const server = useServer({ QUIRE_SESSIONS_EXECUTE: 'true', QUIRE_WORKERS: '1' });
  const py = () => new PythonSdkClient(server().url, server().key);

  it('create, list, execute and delete a browser session; an unknown key is dropped', async () => {
    const created = await py().post('/v2/browser', { ttl: 120, streamWebView: false, colour: 'red' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { id } = created.body;
    let ended = false;
    try {
      assert.ok((await listed(py(), '/v2/browser', 'active')).includes(id));
      const ran = await py().post(`/v2/browser/${id}/execute`, {
        code: 'return 6 * 7',
        language: 'node',
        // Room for a busy machine: the runner's start is counted against it.
        timeout: 90,
        colour: 'red',
      });
      assert.deepEqual([ran.status, ran.body.result, ran.body.exitCode], [200, '42', 0]);
      const deleted = await py().delete(`/v2/browser/${id}`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      ended = true;
      assert.equal(deleted.body.success, true);
      assert.ok(Number.isInteger(deleted.body.sessionDurationMs) && deleted.body.sessionDurationMs >= 0);
    } finally {
      if (!ended) await api(server(), 'DELETE', `/v2/browser/${id}`);
    }
    assert.ok(!(await listed(py(), '/v2/browser', 'active')).includes(id));
    assert.ok((await listed(py(), '/v2/browser', 'destroyed')).includes(id));
    assert.equal((await py().get(`/v2/browser/${id}`)).body.status, 'destroyed');
  });

  it('the same under /v2/interact, then delete the profile the session saved', async () => {
    const created = await py().post('/v2/interact', {
      streamWebView: false,
      profile: { name: 'py-profile', saveChanges: true, colour: 'red' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { id } = created.body;
    let ended = false;
    try {
      assert.ok((await listed(py(), '/v2/interact', 'active')).includes(id));
      const deleted = await py().delete(`/v2/interact/${id}`);
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      ended = true;
      assert.ok(deleted.body.sessionDurationMs >= 0);
    } finally {
      if (!ended) await api(server(), 'DELETE', `/v2/interact/${id}`);
    }
    assert.ok((await listed(py(), '/v2/interact', 'destroyed')).includes(id));
    const removed = await py().delete('/v2/interact/profiles/py-profile');
    assert.deepEqual([removed.status, removed.body], [200, { success: true }]);
    assert.equal((await py().delete('/v2/interact/profiles/py-profile')).status, 404);
  });

  it('the team methods, each a GET with a JSON content type, answer what its models require', async () => {
    // firecrawl-py's models: integers for remaining credits and tokens and for the queue's counts.
    const credits = await py().get('/v2/team/credit-usage');
    assert.equal(credits.status, 200, JSON.stringify(credits.body));
    assert.ok(Number.isInteger(credits.body.data.remainingCredits));
    const tokens = await py().get('/v2/team/token-usage');
    assert.ok(Number.isInteger(tokens.body.data.remainingTokens));
    const concurrency = await py().get('/v2/concurrency-check');
    assert.deepEqual(Object.keys(concurrency.body).sort(), ['concurrency', 'maxConcurrency', 'success']);
    const queue = await py().get('/v2/team/queue-status');
    for (const field of ['jobsInQueue', 'activeJobsInQueue', 'waitingJobsInQueue', 'maxConcurrency'])
      assert.ok(Number.isInteger(queue.body[field]), field);
    const historical = await py().get('/v2/team/token-usage/historical?byApiKey=true');
    assert.equal(historical.status, 200);
    assert.ok(Array.isArray(historical.body.periods));
  });

  it('a JSON content type with no body is no body, on any method and route', async () => {
    const doc = await py().get('/v2/openapi.json');
    assert.deepEqual([doc.status, doc.body.openapi], [200, '3.1.0']);
    assert.equal((await py().get('/health')).status, 200);
    // requests sends Content-Length: 0; other clients (httpx, fetch) send no length at all.
    for (const body of ['', undefined]) {
      for (const route of [`/v2/browser/${unknownId}`, `/v2/interact/${unknownId}`]) {
        const gone = await py().send('DELETE', route, body);
        assert.deepEqual([gone.status, gone.body.error], [404, 'Browser session not found.']);
      }
      const profile = await py().send('DELETE', '/v2/interact/profiles/never-saved', body);
      assert.deepEqual([profile.status, profile.body.error], [404, 'Profile not found.']);
    }
  });

  it('malformed JSON gets upstream’s BAD_REQUEST_INVALID_JSON on every JSON route', async () => {
    for (const [method, route] of [
      ['POST', '/v2/browser'],
      ['POST', '/v2/interact'],
      ['POST', `/v2/interact/${unknownId}/execute`],
      ['DELETE', `/v2/browser/${unknownId}`],
    ] as const) {
      const reply = await py().send(method, route, '{"ttl": 120,');
      assert.deepEqual([reply.status, reply.body], [400, malformed], `${method} ${route}`);
    }
    // Known fields are still checked, and named.
    const bad = await py().post('/v2/browser', { ttl: 5, colour: 'red' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /body\.ttl must be an integer from 30 to 3600/);
    assert.doesNotMatch(bad.body.error, /colour/);
  });

  it('a JSON body over 10 MB gets 413 with upstream’s words', async () => {
    // Only the headers go out: the answer comes from Content-Length alone, and the server closes
    // the connection after it, so a client still writing its 10 MB would race that close.
    const reply = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const request = http.request(
        new URL('/v2/browser', server().url),
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${server().key}`,
            'content-length': String(10 * 1024 * 1024 + 1),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => {
            request.destroy();
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          });
        },
      );
      request.on('error', reject);
      request.flushHeaders();
    });
    assert.deepEqual(
      [reply.status, reply.body],
      [413, { success: false, code: 'BAD_REQUEST', error: 'Request body is too large' }],
    );
  });
});
