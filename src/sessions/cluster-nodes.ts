import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Redis } from 'ioredis';
import { limits } from '../limits.ts';
import type { Logger } from './session-service.ts';

/** What a node that holds sessions says about itself in Redis. */
export interface NodeEntry {
  /** Where the cluster's other API processes reach it; null until it listens. */
  url: string | null;
  /** This run of the node, so that a second process with the same QUIRE_NODE_ID is noticed. */
  instance: string;
  /** Fingerprint of the key its forwarded requests are signed with (see node-forward.ts). */
  keyId: string;
  /** Counts its renewals, so that a live holder of the entry can be told from a stale one. */
  beat: number;
}

function isEntry(value: unknown): value is NodeEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.url === null || typeof v.url === 'string') &&
    typeof v.instance === 'string' &&
    typeof v.keyId === 'string' &&
    typeof v.beat === 'number'
  );
}

function parseEntry(text: string | null): NodeEntry | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isEntry(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The base URL other nodes reach this one at: QUIRE_NODE_URL, else the address it listens on,
 * with the machine's first non-loopback IPv4 address in place of a wildcard (0.0.0.0, ::), which
 * no other machine could connect to.
 */
export function nodeUrl(configured: string, host: string, port: number): string {
  if (configured !== '') return configured.replace(/\/+$/, '');
  let address = host;
  if (host === '0.0.0.0' || host === '::' || host === '') {
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    address = external?.address ?? os.hostname();
  }
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/**
 * The cluster's registry of nodes that hold sessions, in Redis: one key per node
 * (`<prefix>:node:<QUIRE_NODE_ID>`) holding its address, written every nodeHeartbeatMs with a
 * TTL of nodeTtlMs. Redis rather than the shared PostgreSQL store because cluster mode always
 * has it, and a key's own expiry is the heartbeat: a node that dies (or loses its network) drops
 * out by itself with nothing to sweep and no clocks of different machines to compare, where a
 * table would need a last-seen column judged against each reader's clock and a write per beat
 * through the WAL.
 */
export class ClusterNodes {
  private readonly redis: Redis;
  private readonly prefix: string;
  readonly nodeId: string;
  private readonly entry: NodeEntry;
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  private onBeat: () => Promise<void> = async () => {};
  /** Nodes seen without an entry, and since when (this process's monotonic clock). */
  private readonly missingSince = new Map<string, number>();
  private markPublished: () => void = () => {};
  /** Settles once this node's address is in the registry: sessions are created only then. */
  readonly published: Promise<void>;
  private log: Logger = { info() {}, warn() {}, error() {} };
  /** This process's monotonic clock, in ms (a test passes one it moves). */
  private readonly now: () => number;

  constructor(redis: Redis, prefix: string, nodeId: string, keyId: string, now = () => performance.now()) {
    this.redis = redis;
    this.now = now;
    this.prefix = prefix;
    this.nodeId = nodeId;
    this.entry = { url: null, instance: randomUUID(), keyId, beat: 0 };
    this.published = new Promise((resolve) => {
      this.markPublished = resolve;
    });
  }

  useLogger(log: Logger): void {
    this.log = log;
  }

  private key(nodeId: string): string {
    return `${this.prefix}:node:${nodeId}`;
  }

  /**
   * Take this node's id, before anything of a previous run is cleaned up: an entry renewed by
   * another process means another live node uses the same QUIRE_NODE_ID, and starting would
   * destroy its sessions, so this refuses to start. An entry that stops changing is a previous
   * run of this node (killed before its TTL ran out), which is taken over after one look.
   */
  async claim(onBeat: () => Promise<void>): Promise<void> {
    this.onBeat = onBeat;
    const first = parseEntry(await this.redis.get(this.key(this.nodeId)));
    if (first && first.instance !== this.entry.instance) {
      await new Promise((resolve) => setTimeout(resolve, limits.nodeHeartbeatMs * 1.5));
      const second = parseEntry(await this.redis.get(this.key(this.nodeId)));
      if (second && second.instance === first.instance && second.beat !== first.beat) {
        throw new Error(
          `QUIRE_NODE_ID "${this.nodeId}" is in use by another running process${second.url ? ` (at ${second.url})` : ''}: give each API process of a cluster a QUIRE_NODE_ID of its own.`,
        );
      }
    }
    await this.write();
    this.timer = setInterval(() => void this.beat(), limits.nodeHeartbeatMs);
    this.timer.unref();
  }

  /** Make this node reachable at `url`, once it listens. */
  async publish(url: string): Promise<void> {
    this.entry.url = url;
    try {
      await this.write();
      this.log.info({ nodeId: this.nodeId, url }, 'node registered for session routing');
    } catch (err) {
      // The next heartbeat writes it; creates need not wait for Redis beyond that.
      this.log.warn({ err, nodeId: this.nodeId, url }, 'node not registered yet; the heartbeat retries');
    }
    this.markPublished();
  }

  private async write(): Promise<NodeEntry | undefined> {
    this.entry.beat++;
    const previous = await this.redis.set(
      this.key(this.nodeId),
      JSON.stringify(this.entry),
      'PX',
      limits.nodeTtlMs,
      'GET',
    );
    return parseEntry(previous);
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const previous = await this.write();
      if (!previous) {
        this.log.warn(
          { nodeId: this.nodeId },
          "this node's registry entry had lapsed (Redis restarted, or this process stalled); written again",
        );
      } else if (previous.instance !== this.entry.instance) {
        this.log.error(
          { nodeId: this.nodeId, other: previous.url },
          'another process registered this QUIRE_NODE_ID: give each API process its own',
        );
      }
      await this.onBeat();
    } catch (err) {
      this.log.warn({ err }, 'node heartbeat failed');
    } finally {
      this.beating = false;
    }
  }

  /** The entry of a node, if it is alive (its entry has not lapsed). */
  async lookup(nodeId: string): Promise<NodeEntry | undefined> {
    return parseEntry(await this.redis.get(this.key(nodeId)));
  }

  /**
   * Of `nodeIds` (other than this one), those whose entry has been missing for nodeLostAfterMs
   * or more as this process saw it: their sessions are gone with them.
   */
  async lost(nodeIds: string[]): Promise<string[]> {
    const others = nodeIds.filter((id) => id !== this.nodeId);
    if (others.length === 0) {
      this.missingSince.clear();
      return [];
    }
    const entries = await this.redis.mget(others.map((id) => this.key(id)));
    const now = this.now();
    const lost: string[] = [];
    for (const [i, id] of others.entries()) {
      if (entries[i] !== null) {
        this.missingSince.delete(id);
        continue;
      }
      const since = this.missingSince.get(id) ?? now;
      this.missingSince.set(id, since);
      if (now - since >= limits.nodeLostAfterMs) lost.push(id);
    }
    // Nodes no longer asked about (their sessions were marked) are forgotten.
    for (const id of this.missingSince.keys()) if (!others.includes(id)) this.missingSince.delete(id);
    return lost;
  }

  /** Stop the heartbeat and drop this node's entry (its sessions have ended by then). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    try {
      const current = parseEntry(await this.redis.get(this.key(this.nodeId)));
      if (current?.instance === this.entry.instance) await this.redis.del(this.key(this.nodeId));
    } catch (err) {
      this.log.warn({ err }, 'node registry entry not removed');
    }
  }
}
