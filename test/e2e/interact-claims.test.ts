// What the README's "Interact sessions" section promises and test/e2e/interact.test.ts does not
// already show: execute confined when on, tokens kept as hashes, and saveChanges: false. What the
// relay refuses is in test/e2e/interact-firewall.test.ts; admission before launch (node cap, free
// memory, sessions off) and execute off by default in test/unit/session-admission.test.ts and
// test/http/interact-clock.test.ts, with the ttl as an absolute end on a clock the test moves.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { inClusterPass } from '../helpers/mode.ts';
import { useServer } from '../helpers/server.ts';
import {
  api,
  attachToPage,
  createSession,
  openCdp,
  sessionFolder,
  useTestSite,
} from '../helpers/sessions.ts';
import { storeRows } from '../helpers/store.ts';

const MiB = 1024 * 1024;

/**
 * Execute runs Node with Playwright at nice 10, its autogroup too (README: limits per session),
 * so on a machine whose CPUs other processes keep busy it gets a tenth of their share, and its
 * start alone can take longer than the 30 s an execute has by default. The code here is short:
 * these bounds are for a starved machine, not a claim of speed.
 */
const executeS = 150;
const slowUnderLoad = { timeout: 5 * 60_000 };

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

  it('execute cannot write outside its scratch folder', slowUnderLoad, async () => {
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
        timeout: executeS,
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

  it('execute cannot start processes, and its output is cut at 1 MiB per stream', slowUnderLoad, async () => {
    const created = await createSession(server());
    try {
      const spawned = await api(server(), 'POST', `/v2/interact/${created.id}/execute`, {
        timeout: executeS,
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
        timeout: executeS,
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
});
