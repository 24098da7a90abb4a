import type { JobStore } from '../jobs/job-store.ts';
import type { MonitorStore } from '../jobs/monitors/monitor-store.ts';

/**
 * Persistence behind one interface: SQLite in embedded mode; the cluster mode's PostgreSQL
 * implementation plugs in here. Methods are async so that a networked store fits.
 */
export interface ApiKeyRecord {
  id: string;
  team: string;
  label: string | null;
  /** The first characters of the key, enough to recognize it in a list; never the key. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface KeyOwner {
  keyId: string;
  team: string;
}

export interface AuditEvent {
  at: string;
  team: string;
  keyId: string;
  requestId: string;
  action: 'parse' | 'scrape';
  status: number;
  /** `auditMetadata.username`, when the caller gave one. */
  username: string | null;
  /** Upload name (a scrape's URL), type and size; null under zero data retention. */
  filename: string | null;
  format: string | null;
  bytes: number | null;
  durationMs: number;
  zeroDataRetention: boolean;
}

export type SessionStatus = 'active' | 'destroyed';

/** An interact session: one browser process group on the node that holds it. */
export interface SessionRecord {
  /** UUIDv7, as upstream. */
  id: string;
  team: string;
  status: SessionStatus;
  createdAt: string;
  lastActivity: string;
  expiresAt: string;
  ttlS: number;
  activityTtlS: number;
  streamWebView: boolean;
  profileName: string | null;
  /** True when the session saves its changes back to the named profile (its one writer). */
  profileWriter: boolean;
  /** The node whose browser this is, so a cluster can route the session's URLs to it. */
  nodeId: string;
  /** The browser's process (group leader), once it runs; kept after the end, to trace a session to it. */
  pid: number | null;
  closedAt: string | null;
  closeReason: string | null;
}

/** SHA-256 hashes of the session's tokens; the tokens themselves are never stored. */
export interface SessionTokenHashes {
  cdp: string;
  view: string;
  control: string;
}

/** The shortest start of a key id that `keys revoke` takes for the whole id. */
export const MIN_ID_PREFIX = 8;

/** What `keys revoke` was given, as `keys list` shows keys: a prefix may be copied with its ellipsis. */
export function revokeTarget(idOrPrefix: string): string {
  return idOrPrefix.trim().replace(/(?:…|\.\.\.)$/, '');
}

/** An audit event's values in the audit table's column order (AUDIT_COLUMNS), for both stores' inserts. */
export const AUDIT_COLUMNS =
  'at, team, key_id, request_id, action, status, username, filename, format, bytes, duration_ms, zero_data_retention';
export function auditValues(e: AuditEvent): (string | number | boolean | null)[] {
  return [
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
    e.zeroDataRetention,
  ];
}

/** An audit event as read back, with its place in the append-only log. */
export interface AuditRecord extends AuditEvent {
  seq: number;
}

/** Which audit events `readAudit` returns: from `since` (an ISO time), after `afterSeq`, in order. */
export interface AuditQuery {
  since: string;
  team?: string;
  afterSeq: number;
  limit: number;
}

/** The audit table's row, as either database hands it over (SQLite has no booleans; pg reads bigint as text). */
export interface AuditRow {
  seq: number | string;
  at: string | Date;
  team: string;
  key_id: string;
  request_id: string;
  action: AuditEvent['action'];
  status: number;
  username: string | null;
  filename: string | null;
  format: string | null;
  bytes: number | string | null;
  duration_ms: number;
  zero_data_retention: number | boolean;
}

export function auditFromRow(r: AuditRow): AuditRecord {
  return {
    seq: Number(r.seq),
    at: r.at instanceof Date ? r.at.toISOString() : r.at,
    team: r.team,
    keyId: r.key_id,
    requestId: r.request_id,
    action: r.action,
    status: r.status,
    username: r.username,
    filename: r.filename,
    format: r.format,
    bytes: r.bytes === null ? null : Number(r.bytes),
    durationMs: r.duration_ms,
    zeroDataRetention: Boolean(r.zero_data_retention),
  };
}

/**
 * Zero data retention for a team: `allowed` per request (the default), `forced` on every request,
 * or `forbidden` (a request asking for it answers upstream's 403).
 */
export const zdrPolicies = ['allowed', 'forced', 'forbidden'] as const;
export type ZdrPolicy = (typeof zdrPolicies)[number];

/** A team's own settings; null means the server's default (its environment) applies. */
export interface TeamSettings {
  team: string;
  /** Parses at once; null: QUIRE_TEAM_CONCURRENCY. */
  concurrency: number | null;
  /** Requests that may wait for one of those at once (0: none); null: no limit, each waits until its timeout. */
  queueDepth: number | null;
  /** Requests per minute for the team; 0 turns its limit off; null: QUIRE_RATE_LIMIT_PER_MINUTE. */
  ratePerMinute: number | null;
  /** Requests per minute for each of its keys; 0 or null: no limit per key. */
  keyRatePerMinute: number | null;
  /** Whether its requests write audit events. */
  audit: boolean;
  zdr: ZdrPolicy;
  /** Credit balance; null: unlimited. */
  credits: number | null;
}

export type TeamPatch = Partial<Omit<TeamSettings, 'team'>>;

/** A team with no row of its own. */
export const teamDefaults = (team: string): TeamSettings => ({
  team,
  concurrency: null,
  queueDepth: null,
  ratePerMinute: null,
  keyRatePerMinute: null,
  audit: true,
  zdr: 'allowed',
  credits: null,
});

/** The teams table's columns, in TeamSettings' order; both stores select them so. */
export const TEAM_COLUMNS =
  'team, concurrency, queue_depth, rate_per_minute, key_rate_per_minute, audit, zdr, credits';
const teamPatchColumns: Record<keyof TeamPatch, string> = {
  concurrency: 'concurrency',
  queueDepth: 'queue_depth',
  ratePerMinute: 'rate_per_minute',
  keyRatePerMinute: 'key_rate_per_minute',
  audit: 'audit',
  zdr: 'zdr',
  credits: 'credits',
};

export interface TeamRow {
  team: string;
  concurrency: number | null;
  queue_depth: number | null;
  rate_per_minute: number | null;
  key_rate_per_minute: number | null;
  audit: number | boolean;
  zdr: ZdrPolicy;
  credits: number | string | null;
}

export function teamFromRow(r: TeamRow): TeamSettings {
  return {
    team: r.team,
    concurrency: r.concurrency,
    queueDepth: r.queue_depth,
    ratePerMinute: r.rate_per_minute,
    keyRatePerMinute: r.key_rate_per_minute,
    audit: Boolean(r.audit),
    zdr: r.zdr,
    credits: r.credits === null ? null : Number(r.credits),
  };
}

/**
 * One statement that creates the team's row or changes the patched columns of it, returning the
 * row; `param(i)` writes the i-th (1-based) parameter as the database spells it.
 */
export function upsertTeamSql(
  team: string,
  patch: TeamPatch,
  param: (i: number) => string,
): { sql: string; values: (string | number | boolean | null)[] } {
  const set = (Object.keys(teamPatchColumns) as (keyof TeamPatch)[]).filter((k) => patch[k] !== undefined);
  const columns = ['team', ...set.map((k) => teamPatchColumns[k])];
  // With nothing to change, a no-op update still makes RETURNING give the existing row.
  const updates = columns.slice(set.length > 0 ? 1 : 0).map((c) => `${c} = excluded.${c}`);
  return {
    sql: `INSERT INTO teams (${columns.join(', ')}) VALUES (${columns.map((_, i) => param(i + 1)).join(', ')})
          ON CONFLICT (team) DO UPDATE SET ${updates.join(', ')} RETURNING ${TEAM_COLUMNS}`,
    values: [team, ...set.map((k) => patch[k] ?? null)],
  };
}

/** Stored teams and those that only have keys (with the defaults), by name, as `listTeams` gives them. */
export function withKeyedTeams(stored: TeamSettings[], keyed: { team: string }[]): TeamSettings[] {
  const byName = new Map(stored.map((t) => [t.team, t]));
  for (const { team } of keyed) if (!byName.has(team)) byName.set(team, teamDefaults(team));
  // By code point, as both databases' "C" order would be, whatever their collation.
  return [...byName.values()].sort((a, b) => (a.team < b.team ? -1 : a.team > b.team ? 1 : 0));
}

/** A scrape's answer kept for later scrapes with maxAge (src/scrape/scrape-cache.ts). */
export interface ScrapeCacheEntry {
  /** SHA-256 (hex) of the team, the URL and the options that shape the answer. */
  key: string;
  team: string;
  url: string;
  /** The answer's JSON, compressed. */
  body: Buffer;
  cachedAt: string;
  /** When it may no longer be served: the retention bound, or sooner when it holds capture URLs. */
  expiresAt: string;
}

/** The outcome of taking credits before a request: taken, too few, or the team has no balance. */
export type Reservation = 'taken' | 'short' | 'unlimited';

/** What change tracking compares a page with: the Markdown of the team's last tracked scrape of it. */
export interface ChangeBaseline {
  team: string;
  /** The scrape's URL, normalised as fetched. */
  url: string;
  /** The caller's tag; '' for none. */
  tag: string;
  /** The Markdown, brotli-compressed. */
  markdown: Buffer;
  scrapedAt: string;
}

/** Credits charged and model tokens spent through one key in one calendar month (UTC). */
export interface UsageMonth {
  keyId: string;
  /** 'YYYY-MM'. */
  month: string;
  credits: number;
  tokens: number;
  /** When the last charge or spend was added. */
  lastAt: string;
}

/** An amount to add to a key's month; `at` is when it was spent. */
export type UsageAddition = Omit<UsageMonth, 'lastAt'> & { team: string; at: string };

export interface UsageRow {
  key_id: string;
  month: string;
  credits: number | string;
  tokens: number | string;
  last_at: string | Date;
}

export function usageFromRow(r: UsageRow): UsageMonth {
  return {
    keyId: r.key_id,
    month: r.month,
    credits: Number(r.credits),
    tokens: Number(r.tokens),
    lastAt: r.last_at instanceof Date ? r.last_at.toISOString() : r.last_at,
  };
}

export interface Store {
  /** Crawls and batch scrapes: jobs, their pages, documents and webhook deliveries. */
  readonly jobs: JobStore;
  /** Monitors: their schedules, checks and the pages each check read. */
  readonly monitors: MonitorStore;
  insertApiKey(record: ApiKeyRecord, hash: string): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyOwner | undefined>;
  listApiKeys(team?: string): Promise<ApiKeyRecord[]>;
  /** Revoke by id or by the printed prefix; returns how many keys were revoked. */
  revokeApiKey(idOrPrefix: string): Promise<number>;
  countActiveApiKeys(): Promise<number>;
  recordAudit(event: AuditEvent): Promise<void>;
  /** Audit events in the order they were recorded, a page at a time. */
  readAudit(query: AuditQuery): Promise<AuditRecord[]>;
  /** The team's own settings; undefined when it has none stored. */
  getTeam(team: string): Promise<TeamSettings | undefined>;
  /** Every team with stored settings or a stored key, by name. */
  listTeams(): Promise<TeamSettings[]>;
  /** Change the given settings (undefined: left as they are), creating the team's row; returns the row. */
  updateTeam(team: string, patch: TeamPatch): Promise<TeamSettings>;
  /**
   * Take `n` credits in one statement if the balance holds them, so that concurrent requests
   * (from any process) cannot overspend it.
   */
  reserveCredits(team: string, n: number): Promise<Reservation>;
  /**
   * Take as many of `upTo` credits as the balance holds, if it holds `atLeast`, at once; how many
   * were taken (0 when it holds fewer), or null when the team has no balance (unlimited).
   */
  takeCredits(team: string, upTo: number, atLeast: number): Promise<number | null>;
  /**
   * Add `delta` (negative: charge) to a balance, never taking it below zero; the new balance, or
   * null when the team has none (unlimited) and nothing changed.
   */
  adjustCredits(team: string, delta: number): Promise<number | null>;
  /** Add to a key's month of usage, in one statement (any process may add at once). */
  addUsage(addition: UsageAddition): Promise<void>;
  /** A team's usage, by month ascending, then key. */
  readUsage(team: string): Promise<UsageMonth[]>;
  /**
   * Insert a session; false (and nothing inserted) when it would be a second writer of an
   * active session's profile, decided in one statement so two nodes cannot both win.
   */
  insertSession(record: SessionRecord, tokens: SessionTokenHashes): Promise<boolean>;
  getSession(id: string): Promise<SessionRecord | undefined>;
  getSessionTokenHashes(id: string): Promise<SessionTokenHashes | undefined>;
  /** A team's sessions, newest first, optionally only those with one status. */
  listSessions(team: string, status?: SessionStatus): Promise<SessionRecord[]>;
  /** Active sessions recorded for one node (for start-up cleanup). */
  listActiveSessions(nodeId: string): Promise<SessionRecord[]>;
  /** The nodes that hold active sessions (so a cluster can find those of a node that died). */
  listActiveSessionNodes(): Promise<string[]>;
  setSessionPid(id: string, pid: number): Promise<void>;
  touchSession(id: string, lastActivity: string): Promise<void>;
  /** Mark an active session destroyed; false when it already was. */
  markSessionDestroyed(id: string, closedAt: string, reason: string): Promise<boolean>;
  /** Whether an active session of the team uses the named profile. */
  profileInUse(team: string, profileName: string): Promise<boolean>;
  /** The entry under `key` stored at or after `cachedSince` and still servable at `now`. */
  getScrapeCache(
    key: string,
    cachedSince: string,
    now: string,
  ): Promise<Pick<ScrapeCacheEntry, 'body' | 'cachedAt'> | undefined>;
  /**
   * Store (or replace) an entry; then delete entries past their end, and the oldest until the
   * bodies together take at most `capBytes`.
   */
  putScrapeCache(entry: ScrapeCacheEntry, capBytes: number): Promise<void>;
  /** Delete cache entries past their end at `now`; how many went. */
  purgeScrapeCache(now: string): Promise<number>;
  getChangeBaseline(team: string, url: string, tag: string): Promise<ChangeBaseline | undefined>;
  /** Store (or replace) a baseline; then delete those not written since `purgeBefore`. */
  putChangeBaseline(baseline: ChangeBaseline, purgeBefore: string): Promise<void>;
  close(): Promise<void>;
}
