// Admission refuses a session before anything is launched (README, Interact sessions:
// "over any of them, create answers 429 {error} with Retry-After before launching anything"),
// on the session service itself with its real store: no server process and no browser is needed
// to show a refusal, and each case needs a configuration of its own. The node's cap, which needs
// a session held first, is shown over HTTP in test/http/interact-clock.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { SessionService } from '../../src/sessions/session-service.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';

/** What create refuses with under `env`, and what the refusal left in the store and the run folder. */
async function refusal(t: TestContext, env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-admission-'));
  const store = new SqliteStore(path.join(dataDir, 'quire.db'));
  const service = new SessionService(store, loadConfig({ QUIRE_DATA_DIR: dataDir, ...env }));
  t.after(async () => {
    await service.close();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await service.start();
  const base = { http: 'http://quire.test', ws: 'ws://quire.test' };
  const error = await service.create('team', { ttl: 600, activityTtl: 300, streamWebView: true }, base).then(
    () => assert.fail('the session was created'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError, String(error));
  return {
    status: error.status,
    body: error.body(),
    headers: error.headers,
    sessions: (await store.listSessions('team')).map((s) => s.id),
    folders: fs.readdirSync(path.join(dataDir, 'sessions', 'run')),
  };
}

describe('session admission, before anything is launched', () => {
  it('QUIRE_SESSIONS_MIN_FREE_MB refuses a session with 429 and Retry-After when free memory is short', async (t) => {
    const refused = await refusal(t, { QUIRE_SESSIONS_MIN_FREE_MB: '1048576' });
    assert.deepEqual(Object.keys(refused.body), ['error']);
    assert.match(
      String(refused.body.error),
      /^Not enough free memory to start another browser session \(\d+ MB free, 1048576 MB kept\)\. Please retry later\.$/,
    );
    assert.deepEqual(
      { ...refused, body: undefined },
      { status: 429, body: undefined, headers: { 'retry-after': '30' }, sessions: [], folders: [] },
    );
  });

  it('QUIRE_SESSIONS_MIN_FREE_DISK_MB refuses a session with 429 and Retry-After when the data folder’s disk is short', async (t) => {
    const refused = await refusal(t, { QUIRE_SESSIONS_MIN_FREE_DISK_MB: '1048576' });
    assert.deepEqual(Object.keys(refused.body), ['error']);
    assert.match(
      String(refused.body.error),
      /^Not enough free disk to start another browser session \(\d+ MB free, 1048576 MB kept\)\. Please retry later\.$/,
    );
    assert.deepEqual(
      { ...refused, body: undefined },
      { status: 429, body: undefined, headers: { 'retry-after': '30' }, sessions: [], folders: [] },
    );
  });

  it('QUIRE_SESSIONS_MAX=0 turns sessions off: 503 without Retry-After, since retrying would not help', async (t) => {
    assert.deepEqual(await refusal(t, { QUIRE_SESSIONS_MAX: '0' }), {
      status: 503,
      body: {
        success: false,
        error: 'Browser sessions are turned off on this server (QUIRE_SESSIONS_MAX=0).',
      },
      headers: {},
      sessions: [],
      folders: [],
    });
  });
});
