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

export interface Store {
  insertApiKey(record: ApiKeyRecord, hash: string): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyOwner | undefined>;
  listApiKeys(team?: string): Promise<ApiKeyRecord[]>;
  /** Revoke by id or by the printed prefix; returns how many keys were revoked. */
  revokeApiKey(idOrPrefix: string): Promise<number>;
  countActiveApiKeys(): Promise<number>;
  recordAudit(event: AuditEvent): Promise<void>;
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
  setSessionPid(id: string, pid: number): Promise<void>;
  touchSession(id: string, lastActivity: string): Promise<void>;
  /** Mark an active session destroyed; false when it already was. */
  markSessionDestroyed(id: string, closedAt: string, reason: string): Promise<boolean>;
  /** Whether an active session of the team uses the named profile. */
  profileInUse(team: string, profileName: string): Promise<boolean>;
  close(): Promise<void>;
}
