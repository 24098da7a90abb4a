import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { embeddedOnly, firstPassOnly } from '../helpers/mode.ts';
import { parse, repoRoot, startServer, storeEnv } from '../helpers/server.ts';

const run = promisify(execFile);

const cliAlone = firstPassOnly('the CLI on a SQLite data folder, with no server: the same in both passes');
const sqliteFile = embeddedOnly(
  'the SQLite file in the data folder; a cluster keeps its store in PostgreSQL',
);

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
    const env = { ...process.env, ...storeEnv(server) };
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

  it('stores only hashes of keys', cliAlone, async () => {
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

  it(
    'revokes by what `keys list` shows: the prefix with its ellipsis, or the start of the id',
    cliAlone,
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-keys-'));
      const env = { ...process.env, QUIRE_DATA_DIR: dataDir };
      const cli = (...args: string[]) =>
        run(process.execPath, [path.join(repoRoot, 'src/cli/quire.ts'), ...args], { env });
      try {
        await cli('keys', 'create', '--team', 'a');
        await cli('keys', 'create', '--team', 'b');
        const lines = (await cli('keys', 'list')).stdout.trim().split('\n');
        const [firstId, firstPrefix] = lines[0]!.split(/\s+/);
        const secondId = lines[1]!.split(/\s+/)[0]!;
        assert.match(firstPrefix!, /^qk_\S+…$/);
        assert.match((await cli('keys', 'revoke', firstPrefix!)).stdout, /revoked 1 key/);
        assert.match((await cli('keys', 'revoke', secondId.slice(0, 8))).stdout, /revoked 1 key/);
        const after = (await cli('keys', 'list')).stdout;
        assert.match(after, new RegExp(`${firstId}.*revoked`));
        assert.match(after, new RegExp(`${secondId}.*revoked`));
        // Too short to name one key: refused, nothing revoked.
        await assert.rejects(cli('keys', 'revoke', secondId.slice(0, 3)));
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('keeps the store readable by its owner only', sqliteFile, async () => {
    const server = await startServer();
    try {
      // The server has written to the store (its WAL exists once the first write is done).
      assert.equal((await parse(server, { file: { bytes: '<p>x</p>', filename: 'a.html' } })).status, 200);
      for (const name of ['quire.db', 'quire.db-wal', 'quire.db-shm']) {
        const file = path.join(server.dataDir, name);
        if (!fs.existsSync(file)) continue;
        assert.equal(fs.statSync(file).mode & 0o777, 0o600, name);
      }
      assert.equal(fs.statSync(path.join(server.dataDir, 'quire.db')).mode & 0o777, 0o600);
    } finally {
      await server.stop();
    }
  });
});
