import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The machine's PostgreSQL (npm test starts it: scripts/start-services.sh), trust auth. */
export const postgresServerUrl = 'postgres://postgres@127.0.0.1:5432';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${postgresServerUrl}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A new empty database of its own, so that test files running in parallel never meet; `drop`
 * removes it, closing what is still connected.
 */
export async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  // Hex digits only, so the name is safe inside the statements.
  const name = `quire_test_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  return {
    url: `${postgresServerUrl}/${name}`,
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
