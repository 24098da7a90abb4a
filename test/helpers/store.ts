import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
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
