import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startServer } from './helpers/server.ts';
import { api, createSession, isRunning, recordedPid, waitFor } from './helpers/sessions.ts';

describe('interact sessions across a server crash', () => {
  it('a restart kills the browsers a crashed run left, marks their sessions destroyed and removes their folders', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-restart-'));
    const first = await startServer({ QUIRE_DATA_DIR: dataDir });
    const created = await createSession(first);
    const pid = recordedPid(dataDir, created.id);
    const runDir = path.join(dataDir, 'sessions', 'run');
    assert.deepEqual(fs.readdirSync(runDir), [created.id]);

    // kill -9: no shutdown code runs, and the browser (its own process group) lives on.
    const exited = new Promise((resolve) => first.process.once('exit', resolve));
    first.process.kill('SIGKILL');
    await exited;
    assert.ok(isRunning(pid), 'the browser outlived the killed server');

    // The same key as before, as a deployment's configuration would give it.
    const second = await startServer({ QUIRE_DATA_DIR: dataDir, QUIRE_API_KEYS: first.key });
    second.key = first.key;
    try {
      await waitFor('the leftover browser to die', async () => (isRunning(pid) ? undefined : true), 5_000);
      const one = await api(second, 'GET', `/v2/interact/${created.id}`);
      assert.equal(one.body.status, 'destroyed');
      assert.equal(one.body.closeReason, 'the server restarted while the session ran');
      assert.deepEqual(fs.readdirSync(runDir), []);
      // The new run serves sessions as usual.
      const fresh = await createSession(second);
      assert.equal((await api(second, 'DELETE', `/v2/interact/${fresh.id}`)).status, 200);
    } finally {
      await second.stop();
    }
  });
});
