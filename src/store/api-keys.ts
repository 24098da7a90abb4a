import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeyRecord, Store } from './store.ts';

/** Keys carry 256 random bits, so a plain SHA-256 is a safe, fast way to store them. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

const KEY_PREFIX = 'qk_';

export async function createApiKey(
  store: Store,
  team: string,
  label: string | null = null,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: randomUUID(),
    team,
    label,
    prefix: key.slice(0, KEY_PREFIX.length + 8),
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
  await store.insertApiKey(record, hashApiKey(key));
  return { key, record };
}
