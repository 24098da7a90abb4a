import { parseArgs } from 'node:util';
import { describeConfig, loadConfig } from '../config.ts';
import { createApiKey } from '../store/api-keys.ts';
import { PostgresStore } from '../store/postgres-store.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';

const usage = `Usage:
  quire keys create [--team NAME] [--label TEXT]   create a key and print it (shown once)
  quire keys list [--team NAME]                     list keys (prefix, team, state)
  quire keys revoke ID|PREFIX                       revoke a key
  quire config                                      print every setting with its default

The store is the one the server uses: QUIRE_DATABASE_URL when set, else QUIRE_DATA_DIR (default ./data).`;

async function keys(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { team: { type: 'string' }, label: { type: 'string' } },
  });
  const config = loadConfig();
  const store: Store = config.QUIRE_DATABASE_URL
    ? await PostgresStore.open(config.QUIRE_DATABASE_URL)
    : new SqliteStore(config.dbPath);
  try {
    switch (positionals[0]) {
      case 'create': {
        const { key, record } = await createApiKey(
          store,
          values.team ?? config.QUIRE_DEFAULT_TEAM,
          values.label ?? null,
        );
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created key ${record.id} for team "${record.team}"\n`);
        return 0;
      }
      case 'list': {
        for (const k of await store.listApiKeys(values.team)) {
          const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
          process.stdout.write(
            `${k.id}  ${k.prefix}…  team=${k.team}  ${state}  created ${k.createdAt}${k.label ? `  "${k.label}"` : ''}\n`,
          );
        }
        return 0;
      }
      case 'revoke': {
        const target = positionals[1];
        if (!target) break;
        const n = await store.revokeApiKey(target);
        process.stdout.write(n > 0 ? `revoked ${n} key(s)\n` : `no active key matches "${target}"\n`);
        return n > 0 ? 0 : 1;
      }
    }
    process.stderr.write(`${usage}\n`);
    return 2;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'keys') return keys(rest);
  if (command === 'config') {
    for (const row of describeConfig()) process.stdout.write(`${row.name}=${row.fallback}\t${row.meaning}\n`);
    return 0;
  }
  process.stderr.write(`${usage}\n`);
  return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
}

process.exitCode = await main(process.argv.slice(2));
