import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { hashApiKey } from '../store/api-keys.ts';
import type { KeyOwner, Store } from '../store/store.ts';

/**
 * Bearer-key authentication. Keys named in configuration belong to the default team and
 * live only in memory; every other key is looked up by its hash in the store.
 */
export class Authenticator {
  private readonly configured = new Map<string, KeyOwner>();
  private readonly store: Store;

  constructor(store: Store, configuredKeys: readonly string[], defaultTeam: string) {
    this.store = store;
    for (const key of configuredKeys) {
      const hash = hashApiKey(key);
      this.configured.set(hash, { keyId: `config:${hash.slice(0, 12)}`, team: defaultTeam });
    }
  }

  get configuredKeyCount(): number {
    return this.configured.size;
  }

  /** 401 bodies and wording follow upstream (behaviour doc §2). */
  async authenticate(request: FastifyRequest): Promise<KeyOwner> {
    const header = request.headers.authorization;
    if (!header) throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized');
    const match = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
    if (!match) throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: Invalid token');
    const token = match[1]?.trim();
    if (!token) throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: Token missing');
    const hash = hashApiKey(token);
    const owner = this.configured.get(hash) ?? (await this.store.findKeyByHash(hash));
    if (!owner) throw new ApiError(401, 'UNAUTHORIZED', 'Unauthorized: Invalid token');
    return owner;
  }
}
