import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { JobStore } from '../jobs/job-store.ts';
import type { MonitorStore } from '../jobs/monitors/monitor-store.ts';
import { SqlMonitorStore, sqliteRunner } from './sql-monitors.ts';
import { SqliteJobStore } from './sqlite-jobs.ts';
import {
  type ApiKeyRecord,
  AUDIT_COLUMNS,
  type AuditEvent,
  type AuditQuery,
  type AuditRecord,
  type AuditRow,
  auditFromRow,
  auditValues,
  type ChangeBaseline,
  type KeyOwner,
  MIN_ID_PREFIX,
  type Reservation,
  revokeTarget,
  type ScrapeCacheEntry,
  type SessionRecord,
  type SessionStatus,
  type SessionTokenHashes,
  type Store,
  TEAM_COLUMNS,
  type TeamPatch,
  type TeamRow,
  type TeamSettings,
  teamFromRow,
  type UsageAddition,
  type UsageMonth,
  type UsageRow,
  upsertTeamSql,
  usageFromRow,
  withKeyedTeams,
} from './store.ts';

/**
 * A PostgreSQL migration written in the SQL both databases read alike (text and integer columns),
 * applied to SQLite as it is: one text for tables both stores keep the same way.
 */
function sharedMigration(name: string): string {
  return fs.readFileSync(new URL(`./migrations/postgres/${name}`, import.meta.url), 'utf8');
}

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
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     team TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     last_activity TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     ttl_s INTEGER NOT NULL,
     activity_ttl_s INTEGER NOT NULL,
     stream_web_view INTEGER NOT NULL,
     profile_name TEXT,
     profile_writer INTEGER NOT NULL,
     node_id TEXT NOT NULL,
     pid INTEGER,
     closed_at TEXT,
     close_reason TEXT,
     cdp_token_hash TEXT NOT NULL,
     view_token_hash TEXT NOT NULL,
     control_token_hash TEXT NOT NULL
   );
   CREATE INDEX sessions_team ON sessions(team, created_at);
   CREATE INDEX sessions_active ON sessions(status, node_id);`,
  `CREATE TABLE teams (
     team TEXT PRIMARY KEY,
     concurrency INTEGER CHECK (concurrency >= 1),
     rate_per_minute INTEGER CHECK (rate_per_minute >= 0),
     key_rate_per_minute INTEGER CHECK (key_rate_per_minute >= 0),
     audit INTEGER NOT NULL DEFAULT 1,
     zdr TEXT NOT NULL DEFAULT 'allowed' CHECK (zdr IN ('allowed', 'forced', 'forbidden')),
     credits INTEGER CHECK (credits >= 0)
   );
   CREATE INDEX audit_events_at ON audit_events(at);`,
  // Scrape answers kept for maxAge (PostgreSQL's 003_scrape_cache.sql).
  `CREATE TABLE scrape_cache (
     key TEXT PRIMARY KEY,
     team TEXT NOT NULL,
     url TEXT NOT NULL,
     body BLOB NOT NULL,
     bytes INTEGER NOT NULL,
     cached_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   );
   CREATE INDEX scrape_cache_age ON scrape_cache(cached_at, bytes);
   CREATE INDEX scrape_cache_expires ON scrape_cache(expires_at);`,
  // A team's queue depth (PostgreSQL's 004_team_queue_depth.sql).
  'ALTER TABLE teams ADD COLUMN queue_depth INTEGER CHECK (queue_depth >= 0)',
  // Crawls and batch scrapes: the job, its pages, documents and webhook deliveries
  // (PostgreSQL's 005_jobs.sql, which says why each index is there).
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL CHECK (kind IN ('crawl', 'batch')),
     team TEXT NOT NULL,
     key_id TEXT NOT NULL,
     url TEXT,
     options TEXT NOT NULL,
     webhook TEXT,
     status TEXT NOT NULL CHECK (status IN ('scraping', 'completed', 'cancelled', 'failed')),
     zero_data_retention INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     completed_at TEXT,
     expires_at TEXT NOT NULL,
     kickoff_done INTEGER NOT NULL DEFAULT 0,
     robots TEXT,
     error TEXT,
     lease_owner TEXT,
     lease_until TEXT
   );
   CREATE INDEX jobs_team ON jobs(team, kind, status, created_at);
   CREATE INDEX jobs_status ON jobs(status, created_at);
   CREATE INDEX jobs_expires ON jobs(expires_at);
   CREATE TABLE job_pages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     url TEXT NOT NULL,
     depth INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('queued', 'active', 'done', 'failed', 'blocked', 'skipped')),
     attempts INTEGER NOT NULL DEFAULT 0,
     credits INTEGER NOT NULL DEFAULT 0,
     finished_at TEXT,
     error_code TEXT,
     error_message TEXT,
     error_hidden INTEGER NOT NULL DEFAULT 0,
     UNIQUE (job_id, key)
   );
   CREATE INDEX job_pages_state ON job_pages(job_id, state, seq);
   CREATE TABLE job_documents (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     page_id TEXT NOT NULL,
     body BLOB NOT NULL
   );
   CREATE INDEX job_documents_job ON job_documents(job_id, seq);
   CREATE TABLE webhook_deliveries (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
     url TEXT NOT NULL,
     headers TEXT NOT NULL,
     body TEXT NOT NULL,
     attempts INTEGER NOT NULL,
     next_at TEXT NOT NULL
   );
   CREATE INDEX webhook_deliveries_job ON webhook_deliveries(job_id);
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at, seq);`,
  // Webhook deliveries claimed by one process at a time (PostgreSQL's 006_webhook_claims.sql).
  `ALTER TABLE webhook_deliveries ADD COLUMN lease_owner TEXT;
   ALTER TABLE webhook_deliveries ADD COLUMN lease_until TEXT;
   DROP INDEX webhook_deliveries_job;
   CREATE INDEX webhook_deliveries_job ON webhook_deliveries(job_id, seq);`,
  // A job's pages that take a slot of its limit, counted as they change. SQLite only: its queries
  // run on the API process's event loop, and counting a large crawl's rows before each insert of
  // links took a tenth of that loop's time per page (PostgreSQL counts on its own server).
  `ALTER TABLE jobs ADD COLUMN pages_held INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET pages_held =
     (SELECT count(*) FROM job_pages p WHERE p.job_id = jobs.id AND p.state IN ('queued', 'active', 'done'));
   CREATE TRIGGER job_pages_held_insert AFTER INSERT ON job_pages
     WHEN NEW.state IN ('queued', 'active', 'done')
   BEGIN
     UPDATE jobs SET pages_held = pages_held + 1 WHERE id = NEW.job_id;
   END;
   CREATE TRIGGER job_pages_held_update AFTER UPDATE OF state ON job_pages
     WHEN (OLD.state IN ('queued', 'active', 'done')) != (NEW.state IN ('queued', 'active', 'done'))
   BEGIN
     UPDATE jobs SET pages_held = pages_held + (CASE WHEN NEW.state IN ('queued', 'active', 'done') THEN 1 ELSE -1 END)
     WHERE id = NEW.job_id;
   END;`,
  // What each key of a team used per calendar month (PostgreSQL's 007_usage.sql).
  `CREATE TABLE usage_months (
     team TEXT NOT NULL,
     key_id TEXT NOT NULL,
     month TEXT NOT NULL,
     credits INTEGER NOT NULL DEFAULT 0,
     tokens INTEGER NOT NULL DEFAULT 0,
     last_at TEXT NOT NULL,
     PRIMARY KEY (team, month, key_id)
   );`,
  // The Markdown change tracking compares a page with (PostgreSQL's 008_change_baselines.sql).
  `CREATE TABLE change_baselines (
     team TEXT NOT NULL,
     url TEXT NOT NULL,
     tag TEXT NOT NULL,
     markdown BLOB NOT NULL,
     scraped_at TEXT NOT NULL,
     PRIMARY KEY (team, url, tag)
   );
   CREATE INDEX change_baselines_age ON change_baselines(scraped_at);`,
  // An extract's merged answer (PostgreSQL's 009_job_result.sql).
  'ALTER TABLE jobs ADD COLUMN result TEXT',
  // Monitors, their checks and pages: PostgreSQL's own migration, whose SQL both read alike.
  sharedMigration('010_monitors.sql'),
];

/** SQLite has no booleans: 1 and 0. */
const sqliteValue = <T>(v: T | boolean): T | number => (typeof v === 'boolean' ? Number(v) : v);

interface SessionRow {
  id: string;
  team: string;
  status: SessionStatus;
  created_at: string;
  last_activity: string;
  expires_at: string;
  ttl_s: number;
  activity_ttl_s: number;
  stream_web_view: number;
  profile_name: string | null;
  profile_writer: number;
  node_id: string;
  pid: number | null;
  closed_at: string | null;
  close_reason: string | null;
}

const sessionColumns =
  'id, team, status, created_at, last_activity, expires_at, ttl_s, activity_ttl_s, stream_web_view, ' +
  'profile_name, profile_writer, node_id, pid, closed_at, close_reason';

function sessionFromRow(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    team: r.team,
    status: r.status,
    createdAt: r.created_at,
    lastActivity: r.last_activity,
    expiresAt: r.expires_at,
    ttlS: r.ttl_s,
    activityTtlS: r.activity_ttl_s,
    streamWebView: r.stream_web_view === 1,
    profileName: r.profile_name,
    profileWriter: r.profile_writer === 1,
    nodeId: r.node_id,
    pid: r.pid,
    closedAt: r.closed_at,
    closeReason: r.close_reason,
  };
}

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
  readonly jobs: JobStore;
  readonly monitors: MonitorStore;

  constructor(file: string) {
    // Keys' hashes, audit events and session records are the operator's alone: SQLite gives
    // its WAL and shared-memory files the mode of the database file, so 0600 covers all three.
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
    this.db = new DatabaseSync(file);
    // WAL lets the key CLI write while the server reads; busy_timeout rides out its lock.
    // synchronous NORMAL: a commit is not flushed to disk on its own, only at checkpoints. Every
    // request writes an audit event, and the store is called on the event loop: with FULL, each
    // one waited for a flush there, 40-90 ms on a busy disk, while every other request waited.
    // The file stays consistent through any crash; a power loss can lose the last commits.
    this.db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;',
    );
    this.migrate();
    this.jobs = new SqliteJobStore(this.db);
    this.monitors = new SqlMonitorStore(sqliteRunner(this.db));
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
    // As `keys list` shows them: the key's prefix (copied with its ellipsis or not), its id,
    // or the start of its id when that names exactly one active key.
    const target = revokeTarget(idOrPrefix);
    if (target.length === 0) return 0;
    const active = (where: string, ...params: string[]) =>
      this.db.prepare(`SELECT id FROM api_keys WHERE revoked_at IS NULL AND ${where}`).all(...params) as {
        id: string;
      }[];
    let chosen = active('(id = ? OR prefix = ?)', target, target);
    if (chosen.length === 0 && target.length >= MIN_ID_PREFIX) {
      const started = active('substr(id, 1, ?) = ?', String(target.length), target);
      if (started.length === 1) chosen = started;
    }
    const revoke = this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?');
    const at = new Date().toISOString();
    for (const { id } of chosen) revoke.run(at, id);
    return chosen.length;
  }

  async countActiveApiKeys(): Promise<number> {
    const row = this.db.prepare('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL').get() as {
      n: number;
    };
    return row.n;
  }

  async recordAudit(e: AuditEvent): Promise<void> {
    this.db
      .prepare(`INSERT INTO audit_events (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...auditValues(e).map(sqliteValue));
  }

  async readAudit(q: AuditQuery): Promise<AuditRecord[]> {
    // `at` is stored as toISOString() wrote it, so text order is time order.
    const rows = this.db
      .prepare(
        `SELECT seq, ${AUDIT_COLUMNS} FROM audit_events
         WHERE at >= ? AND (? IS NULL OR team = ?) AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(q.since, q.team ?? null, q.team ?? null, q.afterSeq, q.limit) as unknown as AuditRow[];
    return rows.map(auditFromRow);
  }

  async getTeam(team: string): Promise<TeamSettings | undefined> {
    const row = this.db.prepare(`SELECT ${TEAM_COLUMNS} FROM teams WHERE team = ?`).get(team) as
      | TeamRow
      | undefined;
    return row && teamFromRow(row);
  }

  async listTeams(): Promise<TeamSettings[]> {
    const rows = this.db.prepare(`SELECT ${TEAM_COLUMNS} FROM teams`).all() as unknown as TeamRow[];
    const keyed = this.db.prepare('SELECT DISTINCT team FROM api_keys').all() as { team: string }[];
    return withKeyedTeams(rows.map(teamFromRow), keyed);
  }

  async updateTeam(team: string, patch: TeamPatch): Promise<TeamSettings> {
    const { sql, values } = upsertTeamSql(team, patch, () => '?');
    return teamFromRow(this.db.prepare(sql).get(...values.map(sqliteValue)) as unknown as TeamRow);
  }

  async reserveCredits(team: string, n: number): Promise<Reservation> {
    // One statement under SQLite's single writer: no two requests can both see the same credits.
    const taken = this.db
      .prepare('UPDATE teams SET credits = credits - ? WHERE team = ? AND credits >= ?')
      .run(n, team, n);
    if (Number(taken.changes) === 1) return 'taken';
    return (await this.getTeam(team))?.credits == null ? 'unlimited' : 'short';
  }

  async takeCredits(team: string, upTo: number, atLeast: number): Promise<number | null> {
    // Compare and set: the update applies only to the balance just read, so a change another
    // process (the CLI) made in between sends it round again rather than being overwritten.
    for (;;) {
      const row = this.db.prepare('SELECT credits FROM teams WHERE team = ?').get(team) as
        | { credits: number | null }
        | undefined;
      if (row?.credits == null) return null;
      if (row.credits < atLeast) return 0;
      const taken = Math.min(row.credits, upTo);
      const done = this.db
        .prepare('UPDATE teams SET credits = ? WHERE team = ? AND credits = ?')
        .run(row.credits - taken, team, row.credits);
      if (Number(done.changes) === 1) return taken;
    }
  }

  async adjustCredits(team: string, delta: number): Promise<number | null> {
    const row = this.db
      .prepare(
        'UPDATE teams SET credits = MAX(credits + ?, 0) WHERE team = ? AND credits IS NOT NULL RETURNING credits',
      )
      .get(delta, team) as { credits: number } | undefined;
    return row ? row.credits : null;
  }

  async addUsage(u: UsageAddition): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO usage_months (team, key_id, month, credits, tokens, last_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (team, month, key_id) DO UPDATE SET credits = credits + excluded.credits,
           tokens = tokens + excluded.tokens, last_at = MAX(last_at, excluded.last_at)`,
      )
      .run(u.team, u.keyId, u.month, u.credits, u.tokens, u.at);
  }

  async readUsage(team: string): Promise<UsageMonth[]> {
    const rows = this.db
      .prepare(
        'SELECT key_id, month, credits, tokens, last_at FROM usage_months WHERE team = ? ORDER BY month, key_id',
      )
      .all(team) as unknown as UsageRow[];
    return rows.map(usageFromRow);
  }

  async insertSession(r: SessionRecord, tokens: SessionTokenHashes): Promise<boolean> {
    const result = this.db
      .prepare(
        `INSERT INTO sessions (${sessionColumns}, cdp_token_hash, view_token_hash, control_token_hash)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
         WHERE NOT (? AND EXISTS (SELECT 1 FROM sessions WHERE team = ? AND profile_name = ?
                                  AND profile_writer = 1 AND status = 'active'))`,
      )
      .run(
        r.id,
        r.team,
        r.status,
        r.createdAt,
        r.lastActivity,
        r.expiresAt,
        r.ttlS,
        r.activityTtlS,
        r.streamWebView ? 1 : 0,
        r.profileName,
        r.profileWriter ? 1 : 0,
        r.nodeId,
        r.pid,
        r.closedAt,
        r.closeReason,
        tokens.cdp,
        tokens.view,
        tokens.control,
        r.profileWriter ? 1 : 0,
        r.team,
        r.profileName,
      );
    return Number(result.changes) === 1;
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const row = this.db.prepare(`SELECT ${sessionColumns} FROM sessions WHERE id = ?`).get(id) as
      | SessionRow
      | undefined;
    return row ? sessionFromRow(row) : undefined;
  }

  async getSessionTokenHashes(id: string): Promise<SessionTokenHashes | undefined> {
    const row = this.db
      .prepare('SELECT cdp_token_hash, view_token_hash, control_token_hash FROM sessions WHERE id = ?')
      .get(id) as { cdp_token_hash: string; view_token_hash: string; control_token_hash: string } | undefined;
    return row
      ? { cdp: row.cdp_token_hash, view: row.view_token_hash, control: row.control_token_hash }
      : undefined;
  }

  async listSessions(team: string, status?: SessionStatus): Promise<SessionRecord[]> {
    const order = 'ORDER BY created_at DESC, id DESC';
    const rows = (status === undefined
      ? this.db.prepare(`SELECT ${sessionColumns} FROM sessions WHERE team = ? ${order}`).all(team)
      : this.db
          .prepare(`SELECT ${sessionColumns} FROM sessions WHERE team = ? AND status = ? ${order}`)
          .all(team, status)) as unknown as SessionRow[];
    return rows.map(sessionFromRow);
  }

  async listActiveSessions(nodeId: string): Promise<SessionRecord[]> {
    const rows = this.db
      .prepare(`SELECT ${sessionColumns} FROM sessions WHERE status = 'active' AND node_id = ?`)
      .all(nodeId) as unknown as SessionRow[];
    return rows.map(sessionFromRow);
  }

  async listActiveSessionNodes(): Promise<string[]> {
    const rows = this.db
      .prepare("SELECT DISTINCT node_id FROM sessions WHERE status = 'active'")
      .all() as unknown as { node_id: string }[];
    return rows.map((r) => r.node_id);
  }

  async setSessionPid(id: string, pid: number): Promise<void> {
    this.db.prepare('UPDATE sessions SET pid = ? WHERE id = ?').run(pid, id);
  }

  async touchSession(id: string, lastActivity: string): Promise<void> {
    this.db
      .prepare("UPDATE sessions SET last_activity = ? WHERE id = ? AND status = 'active'")
      .run(lastActivity, id);
  }

  async markSessionDestroyed(id: string, closedAt: string, reason: string): Promise<boolean> {
    const result = this.db
      .prepare(
        "UPDATE sessions SET status = 'destroyed', closed_at = ?, close_reason = ? WHERE id = ? AND status = 'active'",
      )
      .run(closedAt, reason, id);
    return Number(result.changes) === 1;
  }

  async profileInUse(team: string, profileName: string): Promise<boolean> {
    const row = this.db
      .prepare(
        "SELECT 1 AS x FROM sessions WHERE team = ? AND profile_name = ? AND status = 'active' LIMIT 1",
      )
      .get(team, profileName);
    return row !== undefined;
  }

  async getScrapeCache(
    key: string,
    cachedSince: string,
    now: string,
  ): Promise<Pick<ScrapeCacheEntry, 'body' | 'cachedAt'> | undefined> {
    // ISO strings from toISOString(): text order is time order.
    const row = this.db
      .prepare('SELECT body, cached_at FROM scrape_cache WHERE key = ? AND cached_at >= ? AND expires_at > ?')
      .get(key, cachedSince, now) as { body: Uint8Array; cached_at: string } | undefined;
    return row && { body: Buffer.from(row.body), cachedAt: row.cached_at };
  }

  async putScrapeCache(e: ScrapeCacheEntry, capBytes: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO scrape_cache (key, team, url, body, bytes, cached_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET body = excluded.body, bytes = excluded.bytes,
           cached_at = excluded.cached_at, expires_at = excluded.expires_at`,
      )
      .run(e.key, e.team, e.url, e.body, e.body.length, e.cachedAt, e.expiresAt);
    await this.purgeScrapeCache(new Date().toISOString());
    // The newest entries whose sizes add up to the cap stay; older ones go.
    this.db
      .prepare(
        `DELETE FROM scrape_cache WHERE key IN (
           SELECT key FROM (SELECT key, sum(bytes) OVER (ORDER BY cached_at DESC, key DESC) AS kept FROM scrape_cache)
           WHERE kept > ?)`,
      )
      .run(capBytes);
  }

  async purgeScrapeCache(now: string): Promise<number> {
    return Number(this.db.prepare('DELETE FROM scrape_cache WHERE expires_at <= ?').run(now).changes);
  }

  async getChangeBaseline(team: string, url: string, tag: string): Promise<ChangeBaseline | undefined> {
    const row = this.db
      .prepare('SELECT markdown, scraped_at FROM change_baselines WHERE team = ? AND url = ? AND tag = ?')
      .get(team, url, tag) as { markdown: Uint8Array; scraped_at: string } | undefined;
    return row && { team, url, tag, markdown: Buffer.from(row.markdown), scrapedAt: row.scraped_at };
  }

  async putChangeBaseline(b: ChangeBaseline, purgeBefore: string): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO change_baselines (team, url, tag, markdown, scraped_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (team, url, tag) DO UPDATE SET markdown = excluded.markdown, scraped_at = excluded.scraped_at`,
      )
      .run(b.team, b.url, b.tag, b.markdown, b.scrapedAt);
    this.db.prepare('DELETE FROM change_baselines WHERE scraped_at < ?').run(purgeBefore);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
