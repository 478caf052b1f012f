import { BlockList, isIP } from 'node:net';
import { familyOf, isInsideAddress } from './address-ranges.ts';

/**
 * What the operator lets tenants' requests reach inside: `NEOFLOW_EGRESS_ALLOW`, comma-separated
 * host names (whatever they resolve to) and addresses or CIDR ranges.
 */
interface EgressAllowList {
  hosts: string[];
  ranges: { address: string; prefix: number; family: 'ipv4' | 'ipv6' }[];
}

export interface EgressPolicy {
  /** Why a connection to `address`, named `host` in the URL, is refused; undefined if allowed. */
  refusal(host: string, address: string): string | undefined;
  /**
   * Why a URL is refused before any lookup: its host is an address inside, or a name that can only
   * mean this host (`localhost`). Names that resolve inside are found when connecting.
   */
  literalRefusal(url: URL): string | undefined;
}

const CIDR = /^([^/]+)(?:\/(\d{1,3}))?$/;

/** Parses the allow list; throws a message naming the entry that is neither a host nor a range. */
export function parseEgressAllow(text: string): EgressAllowList {
  const allow: EgressAllowList = { hosts: [], ranges: [] };
  for (const entry of text.split(',').map((part) => part.trim().toLowerCase())) {
    if (entry === '') continue;
    const match = CIDR.exec(entry);
    const address = match?.[1]?.replace(/^\[(.*)\]$/, '$1') ?? '';
    if (match && isIP(address)) {
      const family = familyOf(address);
      const prefix = match[2] === undefined ? (family === 'ipv4' ? 32 : 128) : Number(match[2]);
      if (prefix > (family === 'ipv4' ? 32 : 128)) throw new Error(`has a range with a prefix too long: ${entry}`);
      allow.ranges.push({ address, prefix, family });
    } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/.test(entry)) {
      allow.hosts.push(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`has an entry that is neither a host name nor an address or CIDR range: ${entry}`);
    }
  }
  return allow;
}

/** `[::1]` in a URL is `::1` to the resolver; a trailing dot names the same host. */
export const bareHost = (url: URL) =>
  url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

export function egressPolicy(allow: EgressAllowList): EgressPolicy {
  const allowedRanges = new BlockList();
  for (const range of allow.ranges) allowedRanges.addSubnet(range.address, range.prefix, range.family);
  const hostAllowed = (host: string) => allow.hosts.includes(host);
  const addressAllowed = (address: string) =>
    !isInsideAddress(address) || allowedRanges.check(address, familyOf(address));

  return {
    refusal(host, address) {
      if (hostAllowed(host) || addressAllowed(address)) return undefined;
      return host === address
        ? `${address} is inside the service's network`
        : `${host} resolves to ${address}, inside the service's network`;
    },
    literalRefusal(url) {
      const host = bareHost(url);
      if (hostAllowed(host)) return undefined;
      if (isIP(host)) return this.refusal(host, host);
      // Resolved by the system to loopback whatever DNS says (RFC 6761).
      return isLocalhostName(host) && this.refusal(host, '127.0.0.1') ? `${host} is this host` : undefined;
    },
  };
}
