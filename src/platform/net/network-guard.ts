import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Outbound requests to addresses a stranger names (OAuth Client ID Metadata Documents, webhook
 * endpoints, a button's webhookUrl) must not reach the server's own network: loopback, private, link-local, CGNAT, multicast, documentation
 * and other special ranges are refused. The check runs on the addresses DNS returns, at connect
 * time (see guardedLookup), so a name that resolves to a private address — or changes its answer
 * between a check and the connection (DNS rebinding) — is refused too. One switch,
 * DANGEROUSLY_ALLOW_PRIVATE_NETWORK_TARGETS, lifts this for every outbound fetch (see outbound.ts).
 */
const blocked = new BlockList();
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const V6: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];
for (const [net, prefix] of V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:127.0.0.1` or `::ffff:7f00:1`). */
function mappedV4(ip: string): string | null {
  const m = /^(?:0{0,4}:){0,5}:?ffff:(.+)$/i.exec(ip);
  if (!m) return null;
  const rest = m[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for any address outside the public unicast internet. Unparseable input counts as private. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = mappedV4(ip);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(ip, 'ipv6');
  }
  return true;
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
