import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { createApiKey } from '../store/api-keys.ts';
import { PostgresStore } from '../store/postgres-store.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';

/** Run `work` on the store the server uses, closing it after; its result is the exit code. */
export async function withStore(work: (store: Store, defaultTeam: string) => Promise<number>): Promise<void> {
  const config = loadConfig();
  const store: Store = config.QUIRE_DATABASE_URL
    ? await PostgresStore.open(config.QUIRE_DATABASE_URL)
    : new SqliteStore(config.dbPath);
  try {
    process.exitCode = await work(store, config.QUIRE_DEFAULT_TEAM);
  } finally {
    await store.close();
  }
}

export function addKeysCommand(program: Command): void {
  const keys = program
    .command('keys')
    .description('create, list and revoke API keys')
    .addHelpText(
      'after',
      '\nThe store is the one the server uses: QUIRE_DATABASE_URL when set, else QUIRE_DATA_DIR (default ./data).',
    );
  keys
    .command('create')
    .description('create a key and print it (shown once)')
    .option('--team <name>', 'the team the key belongs to (default: QUIRE_DEFAULT_TEAM)')
    .option('--label <text>', 'a note shown by keys list')
    .action((opts: { team?: string; label?: string }) =>
      withStore(async (store, defaultTeam) => {
        const { key, record } = await createApiKey(store, opts.team ?? defaultTeam, opts.label ?? null);
        process.stdout.write(`${key}\n`);
        process.stderr.write(`created key ${record.id} for team "${record.team}"\n`);
        return 0;
      }),
    );
  keys
    .command('list')
    .description('list keys (id, prefix, team, state); never the whole key')
    .option('--team <name>', "only this team's keys")
    .action((opts: { team?: string }) =>
      withStore(async (store) => {
        for (const k of await store.listApiKeys(opts.team)) {
          const state = k.revokedAt ? `revoked ${k.revokedAt}` : 'active';
          process.stdout.write(
            `${k.id}  ${k.prefix}…  team=${k.team}  ${state}  created ${k.createdAt}${k.label ? `  "${k.label}"` : ''}\n`,
          );
        }
        return 0;
      }),
    );
  keys
    .command('revoke')
    .description('revoke a key by what keys list shows: its id, the start of its id, or its prefix')
    .argument('<id-or-prefix>')
    .action((target: string) =>
      withStore(async (store) => {
        const n = await store.revokeApiKey(target);
        process.stdout.write(n > 0 ? `revoked ${n} key(s)\n` : `no active key matches "${target}"\n`);
        return n > 0 ? 0 : 1;
      }),
    );
}
