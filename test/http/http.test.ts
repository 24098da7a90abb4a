import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { parse } from '../helpers/server.ts';

describe('HTTP basics', () => {
  const server = useApp();

  it('answers /health without a key', async () => {
    const res = await server().fetch('/health');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('gives unknown routes a JSON 404', async () => {
    const res = await server().fetch('/v2/nope?x=1', {
      headers: { authorization: `Bearer ${server().key}` },
    });
    assert.equal(res.status, 404);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(body.success, false);
    assert.equal(body.code, 'NOT_FOUND');
    assert.match(body.error, /GET \/v2\/nope does not exist/);
  });

  it('has no /metrics route without QUIRE_METRICS_TOKEN', async () => {
    // README, Metrics: "without the variable the route does not exist".
    const res = await server().fetch('/metrics', { headers: { authorization: 'Bearer anything' } });
    assert.equal(res.status, 404);
    const body = (await res.json()) as Record<string, any>;
    assert.equal(body.success, false);
    assert.equal(body.code, 'NOT_FOUND');
  });

  it('echoes a caller request id, or makes one', async () => {
    const given = await server().fetch('/health', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers.get('x-request-id'), 'abc-123');
    const made = await server().fetch('/health');
    assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('serves an OpenAPI document built from the validation schema', async () => {
    const res = await server().fetch('/v2/openapi.json', {
      headers: { authorization: `Bearer ${server().key}` },
    });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as Record<string, any>;
    assert.equal(doc.openapi, '3.1.0');
    const options = doc.components.schemas.ParseOptions;
    assert.equal(options.additionalProperties, false);
    assert.equal(options.properties.timeout.maximum, 300000);
    assert.equal(options.properties.timeout.default, 30000);
    assert.deepEqual(options.properties.redactPII.default, false);
    assert.ok(doc.paths['/v2/parse'].post.requestBody.content['multipart/form-data']);
    const create = doc.components.schemas.CreateInteractSession;
    assert.deepEqual(
      [create.properties.ttl.minimum, create.properties.ttl.maximum, create.properties.ttl.default],
      [30, 3600, 600],
    );
    assert.ok(doc.paths['/v2/interact'].get && doc.paths['/v2/interact/{id}/execute'].post);
    assert.ok(doc.paths['/v2/interact/profiles/{name}'].delete);
  });

  describe('authentication', () => {
    const html = { bytes: '<p>hi</p>', filename: 'a.html' };
    it('401 Unauthorized without a header', async () => {
      const { status, body } = await parse(server(), { file: html, key: null });
      assert.equal(status, 401);
      assert.deepEqual(body, { success: false, error: 'Unauthorized' });
    });
    it('401 Token missing for a bare Bearer', async () => {
      const res = await server().fetch('/v2/parse', {
        method: 'POST',
        headers: { authorization: 'Bearer ' },
      });
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { success: false, error: 'Unauthorized: Token missing' });
    });
    it('401 Invalid token for an unknown key', async () => {
      const { status, body } = await parse(server(), { file: html, key: 'not-a-key' });
      assert.equal(status, 401);
      assert.deepEqual(body, { success: false, error: 'Unauthorized: Invalid token' });
    });
    it('protects the OpenAPI document too', async () => {
      const res = await server().fetch('/v2/openapi.json');
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { success: false, error: 'Unauthorized' });
    });
  });
});
