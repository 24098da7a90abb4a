import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse, repoRoot, startServer } from './helpers/server.ts';

const run = promisify(execFile);

describe('API keys', () => {
  it('first start of an empty store creates and prints one key that works', async () => {
    const server = await startServer({ QUIRE_API_KEYS: '' });
    try {
      const printed = /First API key for team "default".*\n\n\s+(qk_\S+)/.exec(server.output());
      assert.ok(printed, server.output());
      const { status } = await parse(server, {
        file: { bytes: '<p>x</p>', filename: 'a.html' },
        key: printed[1]!,
      });
      assert.equal(status, 200);
    } finally {
      await server.stop();
    }
  });

  it('the CLI creates, lists and revokes keys in the store the server reads', async () => {
    const server = await startServer();
    const env = { ...process.env, QUIRE_DATA_DIR: server.dataDir };
    const cli = (...args: string[]) =>
      run(process.execPath, [path.join(repoRoot, 'src/cli/quire.ts'), ...args], { env });
    try {
      const created = await cli('keys', 'create', '--team', 'acme', '--label', 'ci');
      const key = created.stdout.trim();
      assert.match(key, /^qk_[\w-]{43}$/);
      const file = { bytes: '<p>x</p>', filename: 'a.html' };
      assert.equal((await parse(server, { file, key })).status, 200);

      const listed = await cli('keys', 'list', '--team', 'acme');
      assert.match(listed.stdout, /team=acme {2}active/);
      assert.ok(!listed.stdout.includes(key), 'the list never shows the whole key');
      const id = listed.stdout.split(/\s+/)[0]!;

      assert.match((await cli('keys', 'revoke', id)).stdout, /revoked 1 key/);
      assert.equal((await parse(server, { file, key })).status, 401);
      assert.match((await cli('keys', 'list')).stdout, /revoked 20/);
    } finally {
      await server.stop();
    }
  });

  it('stores only hashes of keys', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-keys-'));
    const env = { ...process.env, QUIRE_DATA_DIR: dataDir };
    const { stdout } = await run(
      process.execPath,
      [path.join(repoRoot, 'src/cli/quire.ts'), 'keys', 'create'],
      { env },
    );
    const db = fs.readFileSync(path.join(dataDir, 'quire.db'));
    const wal = fs.existsSync(path.join(dataDir, 'quire.db-wal'))
      ? fs.readFileSync(path.join(dataDir, 'quire.db-wal'))
      : Buffer.alloc(0);
    assert.ok(!db.includes(stdout.trim()) && !wal.includes(stdout.trim()));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
