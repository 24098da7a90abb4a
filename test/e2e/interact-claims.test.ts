// What the README's "Interact sessions" section promises and test/interact.test.ts does not
// already show: admission before launch, the ttl as an absolute end, execute off by default and
// confined when on, tokens kept as hashes, and saveChanges: false. What the relay refuses is in
// test/interact-firewall.test.ts.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { inClusterPass } from '../helpers/mode.ts';
import { type RunningServer, startServer, useServer } from '../helpers/server.ts';
import {
  api,
  attachToPage,
  createSession,
  openCdp,
  sessionFolder,
  useTestSite,
  waitFor,
} from '../helpers/sessions.ts';
import { storeRows } from '../helpers/store.ts';

const MiB = 1024 * 1024;

/** A server of its own for one test, stopped (and its data folder removed) after it. */
async function withServer(env: Record<string, string>, run: (server: RunningServer) => Promise<void>) {
  const server = await startServer({ QUIRE_WORKERS: '1', ...env });
  try {
    await run(server);
  } finally {
    await server.stop();
  }
}

/** What a refused create left behind: the team's session records and the run folder's entries. */
async function leftBehind(server: RunningServer): Promise<{ sessions: string[]; folders: string[] }> {
  const listed = await api(server, 'GET', '/v2/interact');
  return {
    sessions: listed.body.sessions.map((s: { id: string }) => s.id),
    folders: fs.readdirSync(path.join(server.dataDir, 'sessions', 'run')),
  };
}

/** The status an upgrade to `url` is answered with (101 when it opens). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('error', () => {});
  });
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('interact sessions: what the README promises', () => {
  const server = useServer({
    QUIRE_SESSIONS_ALLOWED_HOSTS: '127.0.0.1',
    QUIRE_SESSIONS_EXECUTE: 'true',
    QUIRE_WORKERS: '1',
  });
  const site = useTestSite();
  // Created first, so its 60 s run while the other tests do: the last test sees the ttl end it
  // although a live viewer keeps it active all along (activityTtl alone would end it at 20 s).
  // A minute leaves room for a create that waits its turn to launch on a busy machine: with 30 s,
  // one that took that long was over before its viewer connected.
  let timed: { id: string; createdAt: string; expiresAt: string; viewer: Record<string, any>[] };
  before(async () => {
    const created = await createSession(server(), { ttl: 60, activityTtl: 20 });
    const ws = new WebSocket(created.liveViewUrl.replace(/^http/, 'ws').replace('/live?', '/live/ws?'));
    const messages: Record<string, any>[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const shown = await api(server(), 'GET', `/v2/interact/${created.id}`);
    timed = {
      id: created.id,
      createdAt: shown.body.createdAt,
      expiresAt: created.expiresAt,
      viewer: messages,
    };
  });

  // Admission: servers of their own, configured for each case.
  it('QUIRE_SESSIONS_MAX caps the node’s sessions with 429 and Retry-After, before launching anything', async () => {
    // Execute is left at its default here, which is off.
    await withServer({ QUIRE_SESSIONS_MAX: '1' }, async (server) => {
      const first = await createSession(server);
      try {
        const over = await api(server, 'POST', '/v2/interact', {});
        assert.equal(over.status, 429);
        assert.deepEqual(over.body, {
          error:
            'This server holds its maximum number of concurrent browser sessions (1). Please retry after a session ends.',
        });
        assert.equal(over.headers.get('retry-after'), '30');
        assert.deepEqual(await leftBehind(server), { sessions: [first.id], folders: [first.id] });

        // Execute is off unless the operator turns it on.
        const execute = await api(server, 'POST', `/v2/interact/${first.id}/execute`, { code: 'return 1' });
        assert.equal(execute.status, 403);
        assert.deepEqual(execute.body, {
          success: false,
          error:
            "Execute is turned off on this server: it runs the caller's code on the host. The operator turns it on with QUIRE_SESSIONS_EXECUTE=true.",
        });
      } finally {
        await api(server, 'DELETE', `/v2/interact/${first.id}`);
      }
      // The slot is free again.
      const next = await createSession(server);
      await api(server, 'DELETE', `/v2/interact/${next.id}`);
    });
  });

  it('QUIRE_SESSIONS_MIN_FREE_MB refuses a session with 429 and Retry-After when free memory is short, before launching anything', async () => {
    await withServer({ QUIRE_SESSIONS_MIN_FREE_MB: '1048576' }, async (server) => {
      const refused = await api(server, 'POST', '/v2/interact', {});
      assert.equal(refused.status, 429);
      assert.deepEqual(Object.keys(refused.body), ['error']);
      assert.match(
        refused.body.error,
        /^Not enough free memory to start another browser session \(\d+ MB free, 1048576 MB kept\)\. Please retry later\.$/,
      );
      assert.equal(refused.headers.get('retry-after'), '30');
      assert.deepEqual(await leftBehind(server), { sessions: [], folders: [] });
    });
  });

  it('QUIRE_SESSIONS_MAX=0 turns sessions off: 503, before launching anything', async () => {
    await withServer({ QUIRE_SESSIONS_MAX: '0' }, async (server) => {
      const refused = await api(server, 'POST', '/v2/interact', {});
      assert.equal(refused.status, 503);
      assert.deepEqual(refused.body, {
        success: false,
        error: 'Browser sessions are turned off on this server (QUIRE_SESSIONS_MAX=0).',
      });
      // Retrying would not help: no Retry-After.
      assert.equal(refused.headers.get('retry-after'), null);
      assert.deepEqual(await leftBehind(server), { sessions: [], folders: [] });
    });
  });

  it('execute cannot write outside its scratch folder', async () => {
    const created = await createSession(server());
    const outside = [
      path.join(os.tmpdir(), `quire-escape-${created.id}`),
      path.join(server().dataDir, 'escape.txt'),
      // The session's own folder and its upload folder, from which files may be handed to the page.
      path.join(sessionFolder(server(), created.id), 'escape.txt'),
      path.join(sessionFolder(server(), created.id), 'uploads', 'escape.txt'),
    ];
    try {
      const ran = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: `const fs = await import('node:fs');
          const path = await import('node:path');
          const attempt = (fn) => { try { fn(); return 'done'; } catch (e) { return e.code; } };
          fs.writeFileSync('inside.txt', 'written in the scratch folder');
          const outside = ${JSON.stringify(outside)};
          return {
            inside: fs.readFileSync('inside.txt', 'utf8'),
            write: outside.map((file) => attempt(() => fs.writeFileSync(file, 'x'))),
            relative: attempt(() => fs.writeFileSync('../escape.txt', 'x')),
            mkdir: attempt(() => fs.mkdirSync(path.join(${JSON.stringify(os.tmpdir())}, 'quire-escape-dir-${created.id}'))),
            symlink: attempt(() => fs.symlinkSync('/etc', 'etc-link')),
          };`,
      });
      assert.deepEqual([ran.status, ran.body.exitCode], [200, 0], ran.body.stderr);
      assert.deepEqual(JSON.parse(ran.body.result), {
        inside: 'written in the scratch folder',
        write: outside.map(() => 'ERR_ACCESS_DENIED'),
        relative: 'ERR_ACCESS_DENIED',
        mkdir: 'ERR_ACCESS_DENIED',
        symlink: 'ERR_ACCESS_DENIED',
      });
      for (const file of outside) assert.equal(fs.existsSync(file), false, file);
      assert.equal(fs.existsSync(path.join(os.tmpdir(), `quire-escape-dir-${created.id}`)), false);
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('execute cannot start processes, and its output is cut at 1 MiB per stream', async () => {
    const created = await createSession(server());
    try {
      const spawned = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: `const cp = await import('node:child_process');
          const { Worker } = await import('node:worker_threads');
          const attempt = (fn) => { try { fn(); return 'started'; } catch (e) { return e.code; } };
          return {
            execSync: attempt(() => cp.execSync('id')),
            spawn: attempt(() => cp.spawn('/bin/sh', ['-c', 'id'])),
            fork: attempt(() => cp.fork('x.js')),
            worker: attempt(() => new Worker('1', { eval: true })),
          };`,
      });
      assert.deepEqual([spawned.status, spawned.body.exitCode], [200, 0], spawned.body.stderr);
      assert.deepEqual(JSON.parse(spawned.body.result), {
        execSync: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        fork: 'ERR_ACCESS_DENIED',
        worker: 'ERR_ACCESS_DENIED',
      });

      const loud = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        code: `process.stdout.write('o'.repeat(${1.5 * MiB}));
          process.stderr.write('e'.repeat(${1.5 * MiB}));
          return 'r'.repeat(${1.5 * MiB});`,
      });
      assert.equal(loud.status, 200);
      const cut = `\n[output cut at ${MiB} bytes]`;
      assert.equal(loud.body.exitCode, 0);
      assert.equal(loud.body.stdout, `${'o'.repeat(MiB)}${cut}`);
      assert.equal(loud.body.stderr, `${'e'.repeat(MiB)}${cut}`);
      assert.equal(loud.body.result, `${'r'.repeat(MiB)}${cut}`);
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('the live view’s tokens cannot open CDP, and no token is stored anywhere in the data folder', async () => {
    const created = await createSession(server());
    const token = (url: string) => new URL(url).searchParams.get('token')!;
    const tokens = {
      cdp: token(created.cdpUrl),
      view: token(created.liveViewUrl),
      control: token(created.interactiveLiveViewUrl),
    };
    const withToken = (url: string, value: string) => url.replace(/token=.*/, `token=${value}`);
    const versionUrl = created.cdpUrl.replace(/^ws/, 'http').replace('/cdp?', '/cdp/json/version?');
    try {
      for (const scope of ['view', 'control'] as const) {
        assert.equal(await upgradeStatus(withToken(created.cdpUrl, tokens[scope])), 401, scope);
        const version = await fetch(withToken(versionUrl, tokens[scope]));
        assert.equal(version.status, 401, scope);
        assert.deepEqual(await version.json(), {
          success: false,
          error: 'Unauthorized: invalid or missing session token.',
        });
        // Both open the live view, which is what they are for.
        assert.equal((await fetch(withToken(created.liveViewUrl, tokens[scope]))).status, 200, scope);
      }
      // The CDP token does open CDP, and is used here so that every token has been seen.
      assert.equal((await fetch(versionUrl)).status, 200);
      const cdp = await openCdp(created.cdpUrl);
      await cdp.send('Target.getTargets');
      await cdp.close();

      // The store keeps their SHA-256 hashes, and nothing anywhere in the data folder
      // (database and its journal, the secret, the session's browser profile) holds a token.
      // In the cluster pass the store is PostgreSQL: its row for the session holds none either.
      const rows = await storeRows(server(), 'SELECT * FROM sessions WHERE id = ?', [created.id]);
      const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
      assert.deepEqual(
        {
          cdp_token_hash: rows[0]?.cdp_token_hash,
          view_token_hash: rows[0]?.view_token_hash,
          control_token_hash: rows[0]?.control_token_hash,
        },
        {
          cdp_token_hash: sha256(tokens.cdp),
          view_token_hash: sha256(tokens.view),
          control_token_hash: sha256(tokens.control),
        },
      );
      const row = JSON.stringify(rows[0]);
      for (const [scope, value] of Object.entries(tokens)) {
        assert.equal(row.includes(value), false, `the ${scope} token is in the store's session row`);
      }
      const files = filesUnder(server().dataDir);
      if (!inClusterPass) assert.ok(files.some((f) => f.endsWith('quire.db')));
      assert.ok(files.some((f) => f.startsWith(sessionFolder(server(), created.id))));
      for (const file of files) {
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(file);
        } catch {
          continue; // A browser's temporary file, gone meanwhile.
        }
        for (const [scope, value] of Object.entries(tokens)) {
          assert.equal(bytes.includes(value), false, `the ${scope} token is in ${file}`);
        }
      }
    } finally {
      await api(server(), 'DELETE', `/v2/interact/${created.id}`);
    }
  });

  it('saveChanges: false leaves the saved profile as it was', async () => {
    /** Run one session of the profile: visit `route`, return what the page shows. */
    const visit = async (profile: object, route: string) => {
      const created = await createSession(server(), { profile });
      try {
        const cdp = await openCdp(created.cdpUrl);
        const { sessionId } = await attachToPage(cdp);
        await cdp.send('Page.enable', {}, sessionId);
        const loaded = cdp.event('Page.loadEventFired', (e) => e.sessionId === sessionId);
        await cdp.send('Page.navigate', { url: `${site()}${route}` }, sessionId);
        await loaded;
        const { result } = await cdp.send(
          'Runtime.evaluate',
          { expression: 'document.getElementById("out").textContent' },
          sessionId,
        );
        await cdp.close();
        return result.value as string;
      } finally {
        await api(server(), 'DELETE', `/v2/interact/${created.id}`);
      }
    };
    assert.equal(await visit({ name: 'notes', saveChanges: true }, '/remember?who=ada&note=saved'), 'stored');
    // A reader overwrites the cookie and the stored note, but what it changed is not kept.
    assert.equal(await visit({ name: 'notes', saveChanges: false }, '/remember?who=bob&note=lost'), 'stored');
    assert.equal(await visit({ name: 'notes', saveChanges: false }, '/recall'), 'visitor=ada|saved');
    assert.equal((await api(server(), 'DELETE', '/v2/interact/profiles/notes')).status, 200);
  });

  it('ends a session ttl seconds after it was created, even while it is in use', async () => {
    const record = await waitFor(
      'the ttl to end the session',
      async () => {
        const one = await api(server(), 'GET', `/v2/interact/${timed.id}`);
        return one.body.status === 'destroyed' ? one.body : undefined;
      },
      120_000,
    );
    assert.equal(record.closeReason, 'its ttl of 60 s ran out');
    assert.equal(Date.parse(timed.expiresAt) - Date.parse(timed.createdAt), 60_000);
    assert.ok(
      Date.parse(record.closedAt) >= Date.parse(timed.expiresAt),
      `closed at ${record.closedAt}, expires at ${timed.expiresAt}`,
    );
    // The viewer's activity went on past the activityTtl of 20 s: the ttl ended it, not idleness.
    assert.ok(Date.parse(record.lastActivity) - Date.parse(record.createdAt) > 20_000, record.lastActivity);
    const ended = await waitFor(
      'the viewer to be told',
      async () => timed.viewer.find((m) => m.type === 'ended'),
      10_000,
    );
    assert.equal(ended.reason, 'its ttl of 60 s ran out');
  });
});
