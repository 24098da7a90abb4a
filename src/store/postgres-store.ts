import pg from 'pg';
import type { JobStore } from '../jobs/job-store.ts';
import type { MonitorStore } from '../jobs/monitors/monitor-store.ts';
import { limits } from '../limits.ts';
import { PostgresJobStore } from './postgres-jobs.ts';
import { migrate } from './postgres-migrate.ts';
import { postgresRunner, SqlMonitorStore } from './sql-monitors.ts';
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
 * Connections per process. Every query is one short statement, so a few serve a busy API
 * process; ten per process leaves PostgreSQL's default 100 connections for several processes.
 */
const POOL_SIZE = 10;

interface SessionRow {
  id: string;
  team: string;
  status: SessionStatus;
  created_at: Date;
  last_activity: Date;
  expires_at: Date;
  ttl_s: number;
  activity_ttl_s: number;
  stream_web_view: boolean;
  profile_name: string | null;
  profile_writer: boolean;
  node_id: string;
  pid: number | null;
  closed_at: Date | null;
  close_reason: string | null;
}

const sessionColumns =
  'id, team, status, created_at, last_activity, expires_at, ttl_s, activity_ttl_s, stream_web_view, ' +
  'profile_name, profile_writer, node_id, pid, closed_at, close_reason';

/** pg reads timestamptz as Date; the store's records carry ISO strings, as they were written. */
const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

function sessionFromRow(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    team: r.team,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    lastActivity: r.last_activity.toISOString(),
    expiresAt: r.expires_at.toISOString(),
    ttlS: r.ttl_s,
    activityTtlS: r.activity_ttl_s,
    streamWebView: r.stream_web_view,
    profileName: r.profile_name,
    profileWriter: r.profile_writer,
    nodeId: r.node_id,
    pid: r.pid,
    closedAt: iso(r.closed_at),
    closeReason: r.close_reason,
  };
}

interface KeyRow {
  id: string;
  team: string;
  label: string | null;
  prefix: string;
  created_at: Date;
  revoked_at: Date | null;
}

/** The cluster mode's store: the same records as SqliteStore, shared by every process on one database. */
export class PostgresStore implements Store {
  private readonly pool: pg.Pool;
  readonly jobs: JobStore;
  readonly monitors: MonitorStore;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
    this.jobs = new PostgresJobStore(pool);
    this.monitors = new SqlMonitorStore(postgresRunner(pool));
  }

  /** Connect and bring the schema up to date (once, however many processes start together). */
  static async open(url: string): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: POOL_SIZE,
      // A database that does not answer fails the request in seconds rather than holding it.
      connectionTimeoutMillis: 5_000,
      query_timeout: limits.storeQueryTimeoutMs,
      application_name: 'quire',
    });
    // An idle connection that drops (a database restart) is replaced by the pool; without a
    // listener its error would end the process.
    pool.on('error', (err) => process.emitWarning(`PostgreSQL connection lost: ${err.message}`));
    try {
      await migrate(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresStore(pool);
  }

  async insertApiKey(record: ApiKeyRecord, hash: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO api_keys (id, team, label, prefix, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [record.id, record.team, record.label, record.prefix, hash, record.createdAt, record.revokedAt],
    );
  }

  async findKeyByHash(hash: string): Promise<KeyOwner | undefined> {
    const { rows } = await this.pool.query<{ id: string; team: string }>(
      'SELECT id, team FROM api_keys WHERE hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    const row = rows[0];
    return row ? { keyId: row.id, team: row.team } : undefined;
  }

  async listApiKeys(team?: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT id, team, label, prefix, created_at, revoked_at FROM api_keys
       WHERE $1::text IS NULL OR team = $1 ORDER BY created_at, seq`,
      [team ?? null],
    );
    return rows.map((r) => ({
      id: r.id,
      team: r.team,
      label: r.label,
      prefix: r.prefix,
      createdAt: r.created_at.toISOString(),
      revokedAt: iso(r.revoked_at),
    }));
  }

  async revokeApiKey(idOrPrefix: string): Promise<number> {
    // As `keys list` shows them: the key's prefix (copied with its ellipsis or not), its id,
    // or the start of its id when that names exactly one active key. One statement, so that
    // the choice and the revocation see the same keys.
    const target = revokeTarget(idOrPrefix);
    if (target.length === 0) return 0;
    const result = await this.pool.query(
      `WITH active AS (SELECT id, prefix FROM api_keys WHERE revoked_at IS NULL),
            exact AS (SELECT id FROM active WHERE id = $1 OR prefix = $1),
            started AS (SELECT id FROM active WHERE $2 AND starts_with(id, $1)),
            chosen AS (
              SELECT id FROM exact
              UNION ALL
              SELECT id FROM started
              WHERE NOT EXISTS (SELECT 1 FROM exact) AND (SELECT count(*) FROM started) = 1)
       UPDATE api_keys SET revoked_at = $3 WHERE revoked_at IS NULL AND id IN (SELECT id FROM chosen)`,
      [target, target.length >= MIN_ID_PREFIX, new Date().toISOString()],
    );
    return result.rowCount ?? 0;
  }

  async countActiveApiKeys(): Promise<number> {
    // count(*) is a bigint, which pg hands over as a string.
    const { rows } = await this.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL',
    );
    return Number(rows[0]!.n);
  }

  async recordAudit(e: AuditEvent): Promise<void> {
    await this.pool.query(
      `INSERT INTO audit_events (${AUDIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      auditValues(e),
    );
  }

  async readAudit(q: AuditQuery): Promise<AuditRecord[]> {
    const { rows } = await this.pool.query<AuditRow>(
      `SELECT seq, ${AUDIT_COLUMNS} FROM audit_events
       WHERE at >= $1 AND ($2::text IS NULL OR team = $2) AND seq > $3 ORDER BY seq LIMIT $4`,
      [q.since, q.team ?? null, q.afterSeq, q.limit],
    );
    return rows.map(auditFromRow);
  }

  async getTeam(team: string): Promise<TeamSettings | undefined> {
    const { rows } = await this.pool.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM teams WHERE team = $1`, [
      team,
    ]);
    return rows[0] && teamFromRow(rows[0]);
  }

  async listTeams(): Promise<TeamSettings[]> {
    const [stored, keyed] = await Promise.all([
      this.pool.query<TeamRow>(`SELECT ${TEAM_COLUMNS} FROM teams`),
      this.pool.query<{ team: string }>('SELECT DISTINCT team FROM api_keys'),
    ]);
    return withKeyedTeams(stored.rows.map(teamFromRow), keyed.rows);
  }

  async updateTeam(team: string, patch: TeamPatch): Promise<TeamSettings> {
    const { sql, values } = upsertTeamSql(team, patch, (i) => `$${i}`);
    const { rows } = await this.pool.query<TeamRow>(sql, values);
    return teamFromRow(rows[0]!);
  }

  async reserveCredits(team: string, n: number): Promise<Reservation> {
    // The row lock makes concurrent reservations queue: each re-checks the balance the last left.
    const { rowCount } = await this.pool.query(
      'UPDATE teams SET credits = credits - $1 WHERE team = $2 AND credits >= $1',
      [n, team],
    );
    if (rowCount === 1) return 'taken';
    return (await this.getTeam(team))?.credits == null ? 'unlimited' : 'short';
  }

  async takeCredits(team: string, upTo: number, atLeast: number): Promise<number | null> {
    // Compare and set, as SqliteStore does: the update applies only to the balance just read, so
    // a concurrent change sends it round again (an UPDATE … FROM a locking subquery re-reads the
    // row after a concurrent change but not the subquery, and could take what was gone).
    for (;;) {
      const { rows } = await this.pool.query<{ credits: string | null }>(
        'SELECT credits FROM teams WHERE team = $1',
        [team],
      );
      if (rows[0]?.credits == null) return null;
      const credits = Number(rows[0].credits);
      if (credits < atLeast) return 0;
      const taken = Math.min(credits, upTo);
      const { rowCount } = await this.pool.query(
        'UPDATE teams SET credits = $1 WHERE team = $2 AND credits = $3',
        [credits - taken, team, credits],
      );
      if (rowCount === 1) return taken;
    }
  }

  async adjustCredits(team: string, delta: number): Promise<number | null> {
    const { rows } = await this.pool.query<{ credits: string }>(
      'UPDATE teams SET credits = GREATEST(credits + $1, 0) WHERE team = $2 AND credits IS NOT NULL RETURNING credits',
      [delta, team],
    );
    return rows[0] ? Number(rows[0].credits) : null;
  }

  async addUsage(u: UsageAddition): Promise<void> {
    await this.pool.query(
      `INSERT INTO usage_months (team, key_id, month, credits, tokens, last_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (team, month, key_id) DO UPDATE SET credits = usage_months.credits + excluded.credits,
         tokens = usage_months.tokens + excluded.tokens, last_at = GREATEST(usage_months.last_at, excluded.last_at)`,
      [u.team, u.keyId, u.month, u.credits, u.tokens, u.at],
    );
  }

  async readUsage(team: string): Promise<UsageMonth[]> {
    const { rows } = await this.pool.query<UsageRow>(
      'SELECT key_id, month, credits, tokens, last_at FROM usage_months WHERE team = $1 ORDER BY month, key_id',
      [team],
    );
    return rows.map(usageFromRow);
  }

  async insertSession(r: SessionRecord, tokens: SessionTokenHashes): Promise<boolean> {
    // The conflict is the unique index on an active session's profile writer (see 001_initial.sql);
    // any other conflict (a repeated id) still fails, as it does in SQLite.
    const result = await this.pool.query(
      `INSERT INTO sessions (${sessionColumns}, cdp_token_hash, view_token_hash, control_token_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       ON CONFLICT (team, profile_name) WHERE profile_writer AND status = 'active' DO NOTHING`,
      [
        r.id,
        r.team,
        r.status,
        r.createdAt,
        r.lastActivity,
        r.expiresAt,
        r.ttlS,
        r.activityTtlS,
        r.streamWebView,
        r.profileName,
        r.profileWriter,
        r.nodeId,
        r.pid,
        r.closedAt,
        r.closeReason,
        tokens.cdp,
        tokens.view,
        tokens.control,
      ],
    );
    return result.rowCount === 1;
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE id = $1`,
      [id],
    );
    return rows[0] && sessionFromRow(rows[0]);
  }

  async getSessionTokenHashes(id: string): Promise<SessionTokenHashes | undefined> {
    const { rows } = await this.pool.query<{
      cdp_token_hash: string;
      view_token_hash: string;
      control_token_hash: string;
    }>('SELECT cdp_token_hash, view_token_hash, control_token_hash FROM sessions WHERE id = $1', [id]);
    const row = rows[0];
    return row
      ? { cdp: row.cdp_token_hash, view: row.view_token_hash, control: row.control_token_hash }
      : undefined;
  }

  async listSessions(team: string, status?: SessionStatus): Promise<SessionRecord[]> {
    // Ties broken by id in byte order, as SQLite compares text, whatever the database's collation.
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE team = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY created_at DESC, id COLLATE "C" DESC`,
      [team, status ?? null],
    );
    return rows.map(sessionFromRow);
  }

  async listActiveSessions(nodeId: string): Promise<SessionRecord[]> {
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT ${sessionColumns} FROM sessions WHERE status = 'active' AND node_id = $1`,
      [nodeId],
    );
    return rows.map(sessionFromRow);
  }

  async listActiveSessionNodes(): Promise<string[]> {
    // The sessions_active index (status, node_id) answers it without reading the table.
    const { rows } = await this.pool.query<{ node_id: string }>(
      "SELECT DISTINCT node_id FROM sessions WHERE status = 'active'",
    );
    return rows.map((r) => r.node_id);
  }

  async setSessionPid(id: string, pid: number): Promise<void> {
    await this.pool.query('UPDATE sessions SET pid = $1 WHERE id = $2', [pid, id]);
  }

  async touchSession(id: string, lastActivity: string): Promise<void> {
    await this.pool.query("UPDATE sessions SET last_activity = $1 WHERE id = $2 AND status = 'active'", [
      lastActivity,
      id,
    ]);
  }

  async markSessionDestroyed(id: string, closedAt: string, reason: string): Promise<boolean> {
    const result = await this.pool.query(
      "UPDATE sessions SET status = 'destroyed', closed_at = $1, close_reason = $2 WHERE id = $3 AND status = 'active'",
      [closedAt, reason, id],
    );
    return result.rowCount === 1;
  }

  async profileInUse(team: string, profileName: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "SELECT 1 FROM sessions WHERE team = $1 AND profile_name = $2 AND status = 'active' LIMIT 1",
      [team, profileName],
    );
    return rowCount === 1;
  }

  async getScrapeCache(
    key: string,
    cachedSince: string,
    now: string,
  ): Promise<Pick<ScrapeCacheEntry, 'body' | 'cachedAt'> | undefined> {
    const { rows } = await this.pool.query<{ body: Buffer; cached_at: Date }>(
      'SELECT body, cached_at FROM scrape_cache WHERE key = $1 AND cached_at >= $2 AND expires_at > $3',
      [key, cachedSince, now],
    );
    const row = rows[0];
    return row && { body: row.body, cachedAt: row.cached_at.toISOString() };
  }

  async putScrapeCache(e: ScrapeCacheEntry, capBytes: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO scrape_cache (key, team, url, body, bytes, cached_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (key) DO UPDATE SET body = excluded.body, bytes = excluded.bytes,
         cached_at = excluded.cached_at, expires_at = excluded.expires_at`,
      [e.key, e.team, e.url, e.body, e.body.length, e.cachedAt, e.expiresAt],
    );
    await this.purgeScrapeCache(new Date().toISOString());
    // The newest entries whose sizes add up to the cap stay; older ones go. Processes writing at
    // once may each delete a little more than needed, never leave the cache far past it.
    await this.pool.query(
      `DELETE FROM scrape_cache WHERE key IN (
         SELECT key FROM (SELECT key, sum(bytes) OVER (ORDER BY cached_at DESC, key DESC) AS kept FROM scrape_cache) t
         WHERE kept > $1)`,
      [capBytes],
    );
  }

  async purgeScrapeCache(now: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM scrape_cache WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  }

  async getChangeBaseline(team: string, url: string, tag: string): Promise<ChangeBaseline | undefined> {
    const { rows } = await this.pool.query<{ markdown: Buffer; scraped_at: Date }>(
      'SELECT markdown, scraped_at FROM change_baselines WHERE team = $1 AND url = $2 AND tag = $3',
      [team, url, tag],
    );
    const row = rows[0];
    return row && { team, url, tag, markdown: row.markdown, scrapedAt: row.scraped_at.toISOString() };
  }

  async putChangeBaseline(b: ChangeBaseline, purgeBefore: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO change_baselines (team, url, tag, markdown, scraped_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team, url, tag) DO UPDATE SET markdown = excluded.markdown, scraped_at = excluded.scraped_at`,
      [b.team, b.url, b.tag, b.markdown, b.scrapedAt],
    );
    await this.pool.query('DELETE FROM change_baselines WHERE scraped_at < $1', [purgeBefore]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
