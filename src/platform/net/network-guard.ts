import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Outbound requests to addresses a stranger names (OAuth Client ID Metadata Documents, webhook
 * endpoints, a button's webhookUrl) must not reach the server's own network: loopback, private, link-local, CGNAT, multicast, documentation
 * and other special ranges are refused. The check runs on the addresses DNS returns, at connect
 * time (see guardedLookup), so a name that resolves to a private address — or changes its answer
 * between a check and the connection (DNS rebinding) — is refused too. One switch,
 * DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS, lifts this for every outbound fetch (see outbound.ts).
 *
 * IPv6 is allowed only inside global unicast 2000::/3, minus its special ranges. IPv6 forms that
 * carry an IPv4 address (issue #27):
 * - checked by their IPv4 address, because the packet goes to exactly that IPv4 host:
 *   IPv4-mapped ::ffff:0:0/96 (the kernel connects over IPv4) and the well-known NAT64 prefix
 *   64:ff9b::/96 (RFC 6052: a DNS64 network's translator forwards to the embedded address);
 * - refused outright, whatever IPv4 they hold: IPv4-compatible ::/96 (deprecated, RFC 4291),
 *   SIIT ::ffff:0:0:0/96, local-use NAT64 64:ff9b:1::/48 (where the IPv4 sits depends on the
 *   local prefix length), 6to4 2002::/16 and Teredo 2001::/32 (deprecated tunnels that deliver to
 *   an IPv4 relay or client), and ISATAP interface ids (…:0000/0100/0200/0300:5efe:a.b.c.d behind
 *   any prefix, which an ISATAP router forwards to that IPv4 address in its own network).
 */
const blockedV4 = new BlockList();
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
for (const [net, prefix] of V4) blockedV4.addSubnet(net, prefix, 'ipv4');

/** The only IPv6 space that may be a target: global unicast. */
const globalV6 = new BlockList();
globalV6.addSubnet('2000::', 3, 'ipv6');
/** Special ranges inside 2000::/3 (IANA IPv6 special-purpose registry). */
const blockedV6 = new BlockList();
const V6: Array<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments, Teredo 2001::/32 among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation (RFC 9637)
];
for (const [net, prefix] of V6) blockedV6.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 address (any spelling: compressed, full, dotted tail). */
function ipv6Groups(ip: string): number[] {
  let s = ip.toLowerCase();
  const dotted = /:(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, dotted.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => parseInt(g, 16));
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address stands for, when the packet would go to that IPv4 host:
 * IPv4-mapped (::ffff:a.b.c.d) and well-known-prefix NAT64 (64:ff9b::a.b.c.d).
 */
function translatedV4(g: number[]): string | null {
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(5) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4Of(g[6]!, g[7]!);
  return null;
}

/** An ISATAP interface id (RFC 5214): 0000:5efe or 0200:5efe (either u/g bit) before an IPv4 address. */
const isatapId = (g: number[]) => (g[4]! & 0xfcff) === 0 && g[5] === 0x5efe;

/** True for any address outside the public unicast internet. Unparseable input counts as private. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return blockedV4.check(ip, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(ip);
  const v4 = translatedV4(groups);
  if (v4 !== null) return blockedV4.check(v4, 'ipv4');
  // ::/96, ::ffff:0:0:0/96, 64:ff9b:1::/48, ULA, link-local, multicast… all lie outside 2000::/3.
  if (!globalV6.check(ip, 'ipv6')) return true;
  if (isatapId(groups)) return true;
  return blockedV6.check(ip, 'ipv6');
}

export class BlockedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback or otherwise non-public address`);
    this.name = 'BlockedAddressError';
  }
}

/** Resolves a host name and throws BlockedAddressError when any answer is not public. */
export async function assertPublicHost(hostname: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new BlockedAddressError(hostname, host);
    return;
  }
  const answers = await dns.promises.lookup(host, { all: true, verbatim: true });
  for (const a of answers) if (isPrivateAddress(a.address)) throw new BlockedAddressError(hostname, a.address);
}

/** Resolves a name to all its addresses (dns.lookup with `all: true`); replaceable so tests resolve nothing. */
export type ResolveAll = (hostname: string, options: dns.LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

const systemResolve: ResolveAll = (hostname, options, callback) => dns.lookup(hostname, options, callback);

/**
 * A `lookup` for net/tls.connect (undici's `connect.lookup`) that refuses non-public answers:
 * the address checked is the address connected to.
 */
export function guardedLookup(allowPrivate: boolean, resolve: ResolveAll = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const list = addresses;
      if (!allowPrivate) {
        const bad = list.find((a) => isPrivateAddress(a.address));
        if (bad) return callback(Object.assign(new BlockedAddressError(hostname, bad.address), { code: 'EBLOCKED' }), '', 4);
      }
      if (list.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
      if ((options).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
