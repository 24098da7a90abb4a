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
  action: 'parse';
  status: number;
  /** `auditMetadata.username`, when the caller gave one. */
  username: string | null;
  /** Upload name, type and size; null under zero data retention. */
  filename: string | null;
  format: string | null;
  bytes: number | null;
  durationMs: number;
  zeroDataRetention: boolean;
}

export interface Store {
  insertApiKey(record: ApiKeyRecord, hash: string): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyOwner | undefined>;
  listApiKeys(team?: string): Promise<ApiKeyRecord[]>;
  /** Revoke by id or by the printed prefix; returns how many keys were revoked. */
  revokeApiKey(idOrPrefix: string): Promise<number>;
  countActiveApiKeys(): Promise<number>;
  recordAudit(event: AuditEvent): Promise<void>;
  close(): Promise<void>;
}
