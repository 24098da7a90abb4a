import fs from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';

/** `NNN_name.sql` files, applied in the order of their number. */
export const migrationsDir = path.join(import.meta.dirname, 'migrations/postgres');

/**
 * Any fixed number that no other application takes on the same database: every process that
 * starts waits on it, so that the first applies the migrations and the rest find them applied.
 */
const MIGRATION_LOCK = '7320952624573089';

interface Migration {
  version: number;
  name: string;
  sql: string;
}

function readMigrations(dir: string): Migration[] {
  const migrations = fs
    .readdirSync(dir)
    .flatMap((name) => {
      const m = /^(\d+)_.+\.sql$/.exec(name);
      return m ? [{ version: Number(m[1]), name, sql: fs.readFileSync(path.join(dir, name), 'utf8') }] : [];
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new Error(`two migrations numbered ${migrations[i]!.version} in ${dir}`);
    }
  }
  return migrations;
}

/**
 * Bring the schema (the connection's search_path) up to date: the pending migrations in one
 * transaction, so that a failure leaves the schema as it was. Returns the versions applied.
 */
export async function migrate(pool: Pool, dir: string = migrationsDir): Promise<number[]> {
  const migrations = readMigrations(dir);
  const client = await pool.connect();
  // A connection whose ROLLBACK failed is broken: released with the error, the pool drops it.
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    // Held until COMMIT or ROLLBACK; taken before the table exists, so its creation is guarded too.
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
