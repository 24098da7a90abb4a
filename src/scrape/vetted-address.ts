import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { NetPolicy } from '../sessions/net-policy.ts';
import { dnsError, refusedUrl } from './fetch-errors.ts';

/** Every address of a host name, as `dns.promises.lookup` with `all: true` gives them. */
export type ResolveAll = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolve: ResolveAll = (hostname) => lookup(hostname, { all: true, order: 'ipv4first' });

export interface VettedAddress {
  address: string;
  family: number;
}

/** The promise, or the signal's reason as soon as it aborts: a resolver that hangs cannot outlive the deadline. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The address to connect to for `url`'s host, checked against the policy the egress proxy
 * enforces: IP literals and localhost names at once, every other name on all its resolved
 * addresses. The connection is then made to this very address (see `pinnedLookup`), so a
 * name that resolves differently a moment later (DNS rebinding) gains nothing.
 */
export async function vettedAddress(
  url: URL,
  policy: NetPolicy,
  resolveAll: ResolveAll,
  signal: AbortSignal,
): Promise<VettedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const early = policy.refuseHost(host);
  if (early) throw refusedUrl(url.href, early);
  const family = isIP(host);
  if (family !== 0) return { address: host, family };
  let addresses: Awaited<ReturnType<ResolveAll>>;
  try {
    addresses = await untilAborted(resolveAll(host), signal);
  } catch {
    if (signal.aborted) throw signal.reason;
    throw dnsError(host);
  }
  if (addresses.length === 0) throw dnsError(host);
  const refused = policy.refuseAddresses(host, addresses);
  if (refused) throw refusedUrl(url.href, refused);
  return addresses[0]!;
}

/** A `lookup` for node:http that answers only the vetted address, whatever name it is asked. */
export function pinnedLookup(vetted: VettedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [vetted]);
    else callback(null, vetted.address, vetted.family);
  };
}
