import { BlockList, isIP } from 'node:net';

/**
 * Which hosts a browser session may reach. Public addresses only: private, loopback,
 * link-local (cloud metadata), CGNAT, multicast and reserved ranges would let a caller reach
 * this host or its network. The operator can allow named hosts (the tests' loopback server).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d, written in hex.
  ['::', 96],
  // SIIT's IPv4-translated addresses and local-use NAT64 (RFC 8215) lead to IPv4 hosts too.
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  // 6to4 and Teredo embed IPv4 addresses that could be private.
  ['2002::', 16],
  ['2001::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = Number.parseInt(hex[1]!, 16);
  const lo = Number.parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether an IP address (v4 or v6, without brackets) is one a session must not reach. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    return v4 !== undefined ? blocked.check(v4, 'ipv4') : blocked.check(address, 'ipv6');
  }
  return true;
}

/** URL schemes a session may be sent to through CDP. */
const navigableSchemes = new Set(['http:', 'https:', 'data:', 'blob:']);

export class NetPolicy {
  private readonly allowed: Set<string>;
  /** Who is refused, for the messages: "a browser session", "a scrape". */
  readonly subject: string;

  constructor(allowedHosts: readonly string[], subject = 'a browser session') {
    this.allowed = new Set(allowedHosts.map(normalHost));
    this.subject = subject;
  }

  /** Hosts the operator allowed by name are reachable whatever they resolve to. */
  isAllowedHost(host: string): boolean {
    return this.allowed.has(normalHost(host));
  }

  /**
   * Why a URL given to the browser over CDP is refused, or undefined when it may go on.
   * Names are only checked here when they are IP literals or localhost; every other name is
   * checked on its resolved addresses by the egress proxy, which is what stops DNS rebinding.
   */
  refuseUrl(raw: string): string | undefined {
    if (raw === '' || raw === 'about:blank' || raw === 'about:srcdoc') return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return `"${raw.slice(0, 200)}" is not a valid URL`;
    }
    if (!navigableSchemes.has(url.protocol)) {
      return `${url.protocol} URLs are not reachable from a browser session (only http:, https:, data: and blob:)`;
    }
    if (url.protocol === 'data:' || url.protocol === 'blob:') return undefined;
    return this.refuseHost(url.hostname);
  }

  /**
   * Why a host is refused once its name is resolved, or undefined. Any private, loopback or
   * link-local address among its records refuses it, since a name that mixes public and private
   * records would reach the private one on another try; hosts allowed by name pass.
   */
  refuseAddresses(host: string, addresses: readonly { address: string }[]): string | undefined {
    if (this.isAllowedHost(host)) return undefined;
    const bad = addresses.find((a) => isBlockedAddress(a.address));
    if (!bad) return undefined;
    return `${host} resolves to ${bad.address}, a private, loopback or link-local address, which ${this.subject} may not reach`;
  }

  /** Why a host is refused before any lookup (IP literals, localhost), or undefined. */
  refuseHost(hostname: string): string | undefined {
    const host = normalHost(hostname);
    if (this.allowed.has(host)) return undefined;
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return `${host} is this machine, which ${this.subject} may not reach`;
    }
    if (isIP(host) !== 0 && isBlockedAddress(host)) {
      return `${host} is a private, loopback or link-local address, which ${this.subject} may not reach`;
    }
    return undefined;
  }
}

/** Lower case, without IPv6 brackets or a trailing dot; the URL parser has already made
 * decimal and hex IPv4 forms (http://2130706433/) dotted. */
function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}
