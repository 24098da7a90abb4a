import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SessionTokenHashes } from '../store/store.ts';

/** UUIDv7 (RFC 9562), as upstream's session ids: time-ordered, 74 random bits. */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a token lets its holder do: drive the browser, watch it, or watch and control it. */
export type TokenScope = keyof SessionTokenHashes;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Session tokens are derived from a server secret, so lists can show a session's URLs again
 * while the store keeps only their hashes (a copy of the database opens no session).
 */
export class SessionTokens {
  private readonly secret: Buffer;

  constructor(secret: Buffer) {
    this.secret = secret;
  }

  /** The configured secret, else one kept in the data folder (made on first use, owner-only). */
  static load(configured: string, dataDir: string): SessionTokens {
    if (configured !== '') return new SessionTokens(Buffer.from(configured, 'utf8'));
    const file = path.join(dataDir, 'session-secret');
    try {
      return new SessionTokens(fs.readFileSync(file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32);
    try {
      fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return new SessionTokens(fs.readFileSync(file));
      throw error;
    }
    return new SessionTokens(secret);
  }

  token(sessionId: string, scope: TokenScope): string {
    return createHmac('sha256', this.secret).update(`${scope}:${sessionId}`).digest('base64url');
  }

  /**
   * A key for another purpose (`label` keeps it apart from every session token), derived from
   * the same secret: the cluster's forwarding signatures.
   */
  derive(label: string): Buffer {
    return createHmac('sha256', this.secret).update(`derived:${label}`).digest();
  }

  hashes(sessionId: string): SessionTokenHashes {
    return {
      cdp: hashToken(this.token(sessionId, 'cdp')),
      view: hashToken(this.token(sessionId, 'view')),
      control: hashToken(this.token(sessionId, 'control')),
    };
  }
}

/** Which of a session's stored token hashes the given token matches, if any. */
export function matchToken(token: string, hashes: SessionTokenHashes): TokenScope | undefined {
  const given = Buffer.from(hashToken(token), 'hex');
  for (const scope of ['cdp', 'view', 'control'] as const) {
    if (timingSafeEqual(given, Buffer.from(hashes[scope], 'hex'))) return scope;
  }
  return undefined;
}
