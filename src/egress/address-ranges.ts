import { BlockList, isIP } from 'node:net';

/**
 * Addresses a tenant's request must not reach unless the operator allows them: the host itself,
 * the networks it sits in, and the special ranges that lead back to either (IANA special-purpose
 * registries). Ranges that embed or translate an IPv4 address (compatible, mapped, translated, NAT64,
 * 6to4, Teredo) are refused whole: no public service needs them, and each could name a private
 * address in disguise (`[::7f00:1]`, `[::ffff:0:a9fe:a9fe]`).
 */
const inside: [address: string, prefix: number, family: 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network"; 0.0.0.0 reaches the host itself
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 96, 'ipv6'], // unspecified (::), loopback (::1), IPv4-compatible (::a.b.c.d, deprecated)
  ['::ffff:0:0', 96, 'ipv6'], // IPv4-mapped (::ffff:a.b.c.d)
  ['::ffff:0:0:0', 96, 'ipv6'], // IPv4-translated (::ffff:0:a.b.c.d, SIIT)
  ['64:ff9b::', 96, 'ipv6'], // NAT64
  ['64:ff9b:1::', 48, 'ipv6'], // local NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 32, 'ipv6'], // Teredo
  ['2002::', 16, 'ipv6'], // 6to4
  ['fc00::', 7, 'ipv6'], // unique-local, cloud metadata (fd00:ec2::254)
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated, still routed by some)
  ['ff00::', 8, 'ipv6'], // multicast
];

const insideList = new BlockList();
for (const [address, prefix, family] of inside) insideList.addSubnet(address, prefix, family);

export const familyOf = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** Whether an IP address lies in the host's own or a private network (see `inside`). */
export function isInsideAddress(address: string): boolean {
  return insideList.check(address, familyOf(address));
}
