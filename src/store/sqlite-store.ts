import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ApiKeyRecord, AuditEvent, KeyOwner, Store } from './store.ts';

/** Schema versions, applied in order; `PRAGMA user_version` records how far a file got. */
const migrations: readonly string[] = [
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     team TEXT NOT NULL,
     label TEXT,
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE INDEX api_keys_team ON api_keys(team);
   CREATE TABLE audit_events (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     team TEXT NOT NULL,
     key_id TEXT NOT NULL,
     request_id TEXT NOT NULL,
     action TEXT NOT NULL,
     status INTEGER NOT NULL,
     username TEXT,
     filename TEXT,
     format TEXT,
     bytes INTEGER,
     duration_ms INTEGER NOT NULL,
     zero_data_retention INTEGER NOT NULL
   );
   CREATE INDEX audit_events_team ON audit_events(team, seq);`,
];

interface KeyRow {
  id: string;
  team: string;
  label: string | null;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

export class SqliteStore implements Store {
  private readonly db: DatabaseSync;

  constructor(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    // WAL lets the key CLI write while the server reads; busy_timeout rides out its lock.
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
    this.migrate();
  }

  private migrate(): void {
    const row = this.db.prepare('PRAGMA user_version').get() as { user_version: number };
    for (let v = row.user_version; v < migrations.length; v++) {
      this.db.exec('BEGIN');
      try {
        this.db.exec(migrations[v]!);
        this.db.exec(`PRAGMA user_version = ${v + 1}`);
        this.db.exec('COMMIT');
      } catch (error) {
        this.db.exec('ROLLBACK');
        throw error;
      }
    }
  }

  async insertApiKey(record: ApiKeyRecord, hash: string): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO api_keys (id, team, label, prefix, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(record.id, record.team, record.label, record.prefix, hash, record.createdAt, record.revokedAt);
  }

  async findKeyByHash(hash: string): Promise<KeyOwner | undefined> {
    const row = this.db
      .prepare('SELECT id, team FROM api_keys WHERE hash = ? AND revoked_at IS NULL')
      .get(hash) as { id: string; team: string } | undefined;
    return row ? { keyId: row.id, team: row.team } : undefined;
  }

  async listApiKeys(team?: string): Promise<ApiKeyRecord[]> {
    const columns = 'id, team, label, prefix, created_at, revoked_at';
    const rows = (team === undefined
      ? this.db.prepare(`SELECT ${columns} FROM api_keys ORDER BY created_at`).all()
      : this.db
          .prepare(`SELECT ${columns} FROM api_keys WHERE team = ? ORDER BY created_at`)
          .all(team)) as unknown as KeyRow[];
    return rows.map((r) => ({
      id: r.id,
      team: r.team,
      label: r.label,
      prefix: r.prefix,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }));
  }

  async revokeApiKey(idOrPrefix: string): Promise<number> {
    const result = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE (id = ? OR prefix = ?) AND revoked_at IS NULL')
      .run(new Date().toISOString(), idOrPrefix, idOrPrefix);
    return Number(result.changes);
  }

  async countActiveApiKeys(): Promise<number> {
    const row = this.db.prepare('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as {
      n: number;
    };
    return row.n;
  }

  async recordAudit(e: AuditEvent): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO audit_events (at, team, key_id, request_id, action, status, username, filename, format,
           bytes, duration_ms, zero_data_retention) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        e.at,
        e.team,
        e.keyId,
        e.requestId,
        e.action,
        e.status,
        e.username,
        e.filename,
        e.format,
        e.bytes,
        e.durationMs,
        e.zeroDataRetention ? 1 : 0,
      );
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
