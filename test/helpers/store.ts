import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createDatabase } from './postgres.ts';
import type { RunningServer } from './server.ts';

/**
 * Rows of a read-only query on `server`'s store, as a test looks into it: the embedded mode's
 * SQLite file in its data folder, or in the cluster pass the cluster's PostgreSQL database (the
 * tables and columns are the same). Write `?` for parameters; they become $1, $2... for PostgreSQL.
 */
export async function storeRows(
  server: Pick<RunningServer, 'dataDir' | 'databaseUrl'>,
  sql: string,
  params: (string | number | null)[] = [],
): Promise<Record<string, unknown>[]> {
  if (server.databaseUrl) {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      let n = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows;
    } finally {
      await client.end();
    }
  }
  const db = new DatabaseSync(path.join(server.dataDir, 'quire.db'), { readOnly: true });
  try {
    return db
      .prepare(sql)
      .all(...params)
      .map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

/**
 * Both stores, each new and empty when opened, for tests that run the same cases on each: SQLite
 * in a temporary folder, and a PostgreSQL database of its own on the machine's server.
 */
export const bothStores: {
  name: string;
  open: () => Promise<{ store: Store; close: () => Promise<void> }>;
}[] = [
  {
    name: 'SQLite',
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-store-'));
      const store = new SqliteStore(path.join(dir, 'quire.db'));
      return {
        store,
        close: async () => {
          await store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const db = await createDatabase();
      const store = await PostgresStore.open(db.url);
      return {
        store,
        close: async () => {
          await store.close();
          await db.drop();
        },
      };
    },
  },
];
