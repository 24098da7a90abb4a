import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startServer } from '../helpers/server.ts';
import { api, createSession, isRunning, recordedPid, waitFor } from '../helpers/sessions.ts';

/** The process running an execute call for a server with this data folder, if there is one. */
function executeProcess(dataDir: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('execute-runner.ts') && cmdline.includes(dataDir)) return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

describe('interact sessions across a server crash', () => {
  it('a restart kills the browsers and executions a crashed run left, marks their sessions destroyed and removes their folders', async (t) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-restart-'));
    // One node, run twice: in the cluster pass, an API process restarted with its node id, on the
    // cluster's store.
    const node = { QUIRE_DATA_DIR: dataDir, QUIRE_NODE_ID: `restart-${process.pid}` };
    const first = await startServer({ ...node, QUIRE_SESSIONS_EXECUTE: 'true' });
    // Stopped by the kill below; if the test fails before it, stopped here.
    t.after(() => first.stop('SIGKILL'));
    const created = await createSession(first);
    // The store is in `dataDir` (first.dataDir is the folder startServer made and did not use).
    const pid = await recordedPid({ ...first, dataDir }, created.id);
    const runDir = path.join(dataDir, 'sessions', 'run');
    assert.deepEqual(fs.readdirSync(runDir), [created.id]);
    // An execution that never ends by itself: only its timeout, which dies with the server, would.
    // It marks its scratch folder once it runs the caller's code.
    const code = "(await import('node:fs')).writeFileSync('running', ''); for (;;);";
    void api(first, 'POST', `/v2/interact/${created.id}/execute`, { code, timeout: 300 }).catch(() => {});
    const sessionDir = path.join(runDir, created.id);
    await waitFor('the execution to run', async () =>
      (fs.readdirSync(sessionDir, { recursive: true }) as string[]).some((f) => f.endsWith('running'))
        ? true
        : undefined,
    );
    const runner = await waitFor('the execute process', async () => executeProcess(dataDir));

    // kill -9: no shutdown code runs, and the browser (its own process group) lives on.
    const exited = new Promise((resolve) => first.process.once('exit', resolve));
    first.process.kill('SIGKILL');
    await exited;
    assert.ok(isRunning(pid), 'the browser outlived the killed server');
    assert.ok(isRunning(runner), 'the execution outlived the killed server');

    // The same key as before, as a deployment's configuration would give it.
    const second = await startServer({
      ...node,
      QUIRE_API_KEYS: first.key,
      ...(first.databaseUrl ? { QUIRE_DATABASE_URL: first.databaseUrl } : {}),
    });
    second.key = first.key;
    try {
      await waitFor('the leftover browser to die', async () => (isRunning(pid) ? undefined : true));
      await waitFor('the leftover execution to die', async () => (isRunning(runner) ? undefined : true));
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
