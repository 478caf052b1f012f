import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { shownUrl } from '../../src/net/neo-networks.ts';

const networksOf = (env: Record<string, string>) => loadConfig({ NEOFLOW_ENV: 'test', ...env }).neo;

describe('NEOFLOW_NETWORKS', () => {
  it('reads networks of weighted nodes, a URL alone weighing 1, and names the first node for one-node commands', () => {
    const neo = networksOf({
      NEOFLOW_NETWORKS: JSON.stringify([
        {
          name: 'mainnet',
          rpc: ['https://a.example:10332', { url: 'https://b.example', weight: 50 }],
          magic: 860833102,
        },
        { name: 'testnet', rpc: ['http://127.0.0.1:20332'] },
      ]),
    });
    expect(neo.networks).toEqual([
      {
        name: 'mainnet',
        magic: 860833102,
        nodes: [
          { url: 'https://a.example:10332', weight: 1 },
          { url: 'https://b.example', weight: 50 },
        ],
      },
      { name: 'testnet', magic: undefined, nodes: [{ url: 'http://127.0.0.1:20332', weight: 1 }] },
    ]);
    expect(neo.rpcUrl).toBe('https://a.example:10332');
  });

  it('makes NEO_RPC_URL alone the one network `default`, and leaves both unset for `neoflow up`', () => {
    expect(networksOf({ NEO_RPC_URL: 'http://node:20332' }).networks).toEqual([
      { name: 'default', nodes: [{ url: 'http://node:20332', weight: 1 }] },
    ]);
    expect(networksOf({}).networks).toBeUndefined();
  });

  it.each([
    ['not json', /NEOFLOW_NETWORKS is invalid .*must be a JSON array/],
    ['[]', /NEOFLOW_NETWORKS .*value: Too small/],
    ['[{"name":"Main","rpc":["http://a"]}]', /\[0\]\.name: must be 1-32 lower-case/],
    ['[{"name":"main","rpc":["ftp://a"]}]', /\[0\]\.rpc\[0\]: .*http\(s\) URL/],
    ['[{"name":"main","rpc":[{"url":"http://a","weight":0}]}]', /\[0\]\.rpc\[0\]/],
    ['[{"name":"main","rpc":["http://a"],"magic":-1}]', /\[0\]\.magic/],
    ['[{"name":"main","rpc":["http://a"]},{"name":"main","rpc":["http://b"]}]', /network "main" is listed twice/],
    ['[{"name":"main","rpc":["http://a","http://a"]}]', /network "main" lists a URL twice/],
  ])('refuses %s, naming the variable and the field', (value, message) => {
    expect(() => networksOf({ NEOFLOW_NETWORKS: value })).toThrow(message);
  });

  it('refuses a NEO_RPC_URL that is none of the networks` nodes, and an agreement beyond a network`s nodes', () => {
    const networks = JSON.stringify([{ name: 'main', rpc: ['http://a:1', 'http://b:1'] }]);
    expect(() => networksOf({ NEOFLOW_NETWORKS: networks, NEO_RPC_URL: 'http://c:1' })).toThrow(/^NEO_RPC_URL/);
    expect(networksOf({ NEOFLOW_NETWORKS: networks, NEO_RPC_URL: 'http://b:1' }).rpcUrl).toBe('http://b:1');
    expect(networksOf({ NEOFLOW_NETWORKS: networks, NEOFLOW_BLOCK_AGREEMENT: '2' }).blockAgreement).toBe(2);
    expect(() => networksOf({ NEOFLOW_NETWORKS: networks, NEOFLOW_BLOCK_AGREEMENT: '3' })).toThrow(
      /^NEOFLOW_BLOCK_AGREEMENT .*at most the nodes of a network \(2\)/,
    );
  });

  it('shows a node without user, password, path or query', () => {
    expect(shownUrl('https://user:pw@node.example:443/rpc/key?token=x')).toBe('https://node.example');
    expect(shownUrl('http://127.0.0.1:20332/')).toBe('http://127.0.0.1:20332');
  });
});
