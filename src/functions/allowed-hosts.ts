import { isIP } from 'node:net';
import { z } from 'zod';
import { bareHost } from '../egress/egress-policy.ts';

/** Hosts one function may name: enough for the APIs a function reads, few enough to read at a glance. */
const maxAllowedHosts = 50;

const label = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const hostName = new RegExp(`^${label}(\\.${label})*$`);

/**
 * One entry as a URL's host reads it: a name (lower case), an IPv4 address or an IPv6 address
 * (bare, compressed), or `*.` and a name for any host below it. An address is spelled as a URL's
 * host spells it (`[::1]` is `::1`), so the match is a comparison of strings.
 */
function normalised(entry: string): string | undefined {
  const text = entry.toLowerCase();
  const address = text.replace(/^\[(.*)\]$/, '$1');
  if (isIP(address)) return bareHost(new URL(`http://${isIP(address) === 6 ? `[${address}]` : address}`));
  const name = text.startsWith('*.') ? text.slice(2) : text;
  return name.length <= 253 && hostName.test(name) && !isIP(name) ? text : undefined;
}

/** `allowedHosts`: the hosts a function's `fetch` may reach (deny by default). */
export const allowedHosts = z
  .array(
    z.string({ error: 'must be a string' }).transform((entry, context) => {
      const host = normalised(entry);
      if (host !== undefined) return host;
      context.addIssue({
        code: 'custom',
        message: `"${entry.slice(0, 64)}" is neither a host name, an IP address nor *. and a host name`,
      });
      return z.NEVER;
    }),
    { error: 'must be an array of host names' },
  )
  .max(maxAllowedHosts, `must name at most ${maxAllowedHosts} hosts`)
  .transform((hosts) => [...new Set(hosts)])
  .describe(
    'Hosts context.services.http.fetch may reach: exact hosts or IP addresses, or *.suffix for any host below it; none by default.',
  );

/** Whether a URL's host is one of `hosts`: equal to an entry, or below a `*.` entry's name. */
export function hostAllowed(hosts: readonly string[], url: URL): boolean {
  const host = bareHost(url);
  return hosts.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
}
