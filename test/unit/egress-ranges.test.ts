import { describe, expect, it } from 'vitest';
import { egressPolicy, parseEgressAllow } from '../../src/egress/egress-policy.ts';

/** Every spelling of an IPv6 address that embeds or translates IPv4, and public ones beside them. */
const spellings: [url: string, refused: boolean, form: string][] = [
  ['http://[::7f00:1]/', true, 'IPv4-compatible loopback'],
  ['http://[::127.0.0.1]:8080/', true, 'IPv4-compatible loopback, dotted'],
  ['http://[0:0:0:0:0:0:7f00:1]/', true, 'IPv4-compatible loopback, written out'],
  ['http://[::a9fe:a9fe]/latest/meta-data/', true, 'IPv4-compatible cloud metadata'],
  ['http://[::169.254.169.254]/', true, 'IPv4-compatible cloud metadata, dotted'],
  ['http://[::a00:1]/', true, 'IPv4-compatible private'],
  ['http://[::8.8.8.8]/', true, 'IPv4-compatible, even of a public address'],
  ['http://[::]/', true, 'unspecified'],
  ['http://[::1]/', true, 'loopback'],
  ['http://[::ffff:127.0.0.1]/', true, 'IPv4-mapped loopback'],
  ['http://[::ffff:7f00:1]/', true, 'IPv4-mapped loopback, hex'],
  ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', true, 'IPv4-mapped cloud metadata, written out'],
  ['http://[::ffff:8.8.8.8]/', true, 'IPv4-mapped, even of a public address'],
  ['http://[::ffff:0:7f00:1]/', true, 'IPv4-translated loopback'],
  ['http://[::ffff:0:127.0.0.1]/', true, 'IPv4-translated loopback, dotted'],
  ['http://[::ffff:0:a9fe:a9fe]/', true, 'IPv4-translated cloud metadata'],
  ['http://[64:ff9b::7f00:1]/', true, 'NAT64 loopback'],
  ['http://[64:ff9b::169.254.169.254]/', true, 'NAT64 cloud metadata, dotted'],
  ['http://[64:ff9b::808:808]/', true, 'NAT64, even of a public address'],
  ['http://[64:ff9b:1::a00:1]/', true, 'local-use NAT64'],
  ['http://[64:ff9b:1:ffff:ffff:ffff:ffff:ffff]/', true, 'local-use NAT64, its last address'],
  ['http://[2002:7f00:1::]/', true, '6to4 of loopback'],
  ['http://[2002:a9fe:a9fe::1]/', true, '6to4 of cloud metadata'],
  ['http://[2002:808:808::1]/', true, '6to4, even of a public address'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', true, 'Teredo of loopback (obfuscated client)'],
  ['http://[2001::1]/', true, 'Teredo'],
  ['http://[2001:4860:4860::8888]/', false, 'public (Google DNS)'],
  ['http://[2606:4700:4700::1111]/', false, 'public (Cloudflare DNS)'],
  ['http://[2001:1::1]/', false, 'public, just past Teredo'],
  ['http://[64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff]/', false, 'just before NAT64'],
  ['http://[::1:0:0:1]/', false, 'just past the IPv4-translated range'],
];

describe('the egress guard', () => {
  it('refuses every IPv6 range that embeds or translates IPv4, in every spelling, and no public address', () => {
    const policy = egressPolicy(parseEgressAllow(''));
    const wrong = spellings
      .filter(([url, refused]) => (policy.literalRefusal(new URL(url)) !== undefined) !== refused)
      .map(([url, refused, form]) => `${form}: ${url} should be ${refused ? 'refused' : 'allowed'}`);
    expect(wrong).toEqual([]);
  });
});
