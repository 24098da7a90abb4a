import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cliOn } from '../helpers/cli.ts';
import { embeddedOnly, firstPassOnly } from '../helpers/mode.ts';
import { parse, repoRoot, storeEnv, useServer } from '../helpers/server.ts';

const cliAlone = firstPassOnly('the CLI on a SQLite data folder, with no server: the same in both passes');
const sqliteFile = embeddedOnly(
  'the SQLite file in the data folder; a cluster keeps its store in PostgreSQL',
);

/**
 * API keys made at a server's first start and with the CLI. One server for the file, started as
 * `npm start` starts it (what it prints on an empty store is the subject) with no key configured.
 */
describe('API keys', () => {
  const server = useServer({ QUIRE_API_KEYS: '', QUIRE_WORKERS: '1' });
  const file = { bytes: '<p>x</p>', filename: 'a.html' };
  /** The key the first start printed. */
  const firstKey = () => {
    const printed = /First API key for team "default".*\n\n\s+(qk_\S+)/.exec(server().output());
    assert.ok(printed, server().output());
    return printed[1]!;
  };

  it('first start of an empty store creates and prints one key that works', async () => {
    const { status } = await parse(server(), { file, key: firstKey() });
    assert.equal(status, 200);
  });

  it('the CLI creates, lists and revokes keys in the store the server reads', async () => {
    const cli = cliOn(storeEnv(server()));
    const key = (await cli('keys', 'create', '--team', 'acme', '--label', 'ci')).trim();
    assert.match(key, /^qk_[\w-]{43}$/);
    assert.equal((await parse(server(), { file, key })).status, 200);

    const listed = await cli('keys', 'list', '--team', 'acme');
    assert.match(listed, /team=acme {2}active/);
    assert.ok(!listed.includes(key), 'the list never shows the whole key');
    const id = listed.split(/\s+/)[0]!;

    assert.match(await cli('keys', 'revoke', id), /revoked 1 key/);
    assert.equal((await parse(server(), { file, key })).status, 401);
    assert.match(await cli('keys', 'list'), /revoked 20/);
  });

  it('stores only hashes of keys', cliAlone, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-keys-'));
    const stdout = await cliOn({ QUIRE_DATA_DIR: dataDir })('keys', 'create');
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
      const cli = cliOn({ QUIRE_DATA_DIR: dataDir });
      try {
        await cli('keys', 'create', '--team', 'a');
        await cli('keys', 'create', '--team', 'b');
        const lines = (await cli('keys', 'list')).trim().split('\n');
        const [firstId, firstPrefix] = lines[0]!.split(/\s+/);
        const secondId = lines[1]!.split(/\s+/)[0]!;
        assert.match(firstPrefix!, /^qk_\S+…$/);
        assert.match(await cli('keys', 'revoke', firstPrefix!), /revoked 1 key/);
        assert.match(await cli('keys', 'revoke', secondId.slice(0, 8)), /revoked 1 key/);
        const after = await cli('keys', 'list');
        assert.match(after, new RegExp(`${firstId}.*revoked`));
        assert.match(after, new RegExp(`${secondId}.*revoked`));
        // Too short to name one key: refused, nothing revoked.
        await assert.rejects(cli('keys', 'revoke', secondId.slice(0, 3)));
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it(
    'prints the settings the README lists, and answers a mistake with a message and an exit code',
    cliAlone,
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
      const cli = cliOn({ QUIRE_DATA_DIR: dataDir });
      const failure = async (args: string[]) => {
        const error = (await cli(...args).then(
          () => assert.fail(`quire ${args.join(' ')} succeeded`),
          (e: unknown) => e,
        )) as { code: number; stderr: string };
        return { code: error.code, stderr: error.stderr };
      };
      try {
        const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
        const table = readme.slice(readme.indexOf('## Configuration'));
        const listed = [...table.matchAll(/^\| `([A-Z_0-9]+)` \|/gm)].map((m) => m[1]!);
        assert.ok(listed.length > 20, 'the README lists the settings');
        const printed = (await cli('config'))
          .trim()
          .split('\n')
          .map((line) => line.split('=')[0]);
        assert.deepEqual(printed.sort(), [...listed].sort());

        assert.deepEqual(await failure(['teams', 'credit', 'acme']), {
          code: 2,
          stderr: 'say --add N, --set N or --unlimited\n',
        });
        assert.deepEqual(await failure(['teams', 'credit', 'acme', '--add', '5']), {
          code: 1,
          stderr: 'team "acme" has no balance (unlimited): give it one with --set\n',
        });
        const unknown = await failure(['teams', 'rename', 'acme']);
        assert.equal(unknown.code, 2);
        assert.match(unknown.stderr, /unknown command 'rename'/);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('keeps the store readable by its owner only', sqliteFile, async () => {
    // The server has written to the store (its WAL exists once the first write is done).
    assert.equal((await parse(server(), { file, key: firstKey() })).status, 200);
    for (const name of ['quire.db', 'quire.db-wal', 'quire.db-shm']) {
      const stored = path.join(server().dataDir, name);
      if (!fs.existsSync(stored)) continue;
      assert.equal(fs.statSync(stored).mode & 0o777, 0o600, name);
    }
    assert.equal(fs.statSync(path.join(server().dataDir, 'quire.db')).mode & 0o777, 0o600);
  });
});
