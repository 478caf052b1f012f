import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Logger } from '../../src/log.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.ts';

/**
 * Issue 45: one network over three nodes, all in front of the tests' neo-go: one in sync, one
 * answering testnet's magic, one answering `getblockcount` 10 blocks behind (and weighing most).
 */
const testnetMagic = 894710606;
/** What a node's start-up probe asks (node-probe.ts). */
const probeMethods = ['getversion', 'getblockhash', 'getblocknotifications', 'listplugins'];

let inSync: RpcProxy;
let stranger: RpcProxy;
let behind: RpcProxy;
let api: TestApi;
const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
  lines.push({ level, message, fields });
};
const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), with: () => log };

beforeAll(async () => {
  [inSync, stranger, behind] = await Promise.all([
    startRpcProxy(inject('neoRpcUrl')),
    startRpcProxy(inject('neoRpcUrl'), { magic: testnetMagic }),
    startRpcProxy(inject('neoRpcUrl'), { lagBlocks: 10 }),
  ]);
  const networks = [
    { name: 'main', rpc: [{ url: behind.url, weight: 1000 }, `${stranger.url}/rpc?key=secret`, inSync.url] },
  ];
  api = await startTestApi([], { NEOFLOW_NETWORKS: JSON.stringify(networks) }, { log });
});
afterAll(async () => {
  await api?.close();
  await Promise.all([inSync, stranger, behind].map((proxy) => proxy?.close()));
});

interface NodeHealth {
  url: string;
  status: string;
  primary: boolean;
  reason?: string;
  lagBlocks: number | null;
}
const health = async () => {
  const response = await fetch(`${api.url}/v1/health`);
  const body = (await response.json()) as {
    neo: { networks: { name: string; status: string; nodes: NodeHealth[] }[] };
  };
  return { status: response.status, network: body.neo.networks[0]! };
};

describe('a network`s nodes at start and after', () => {
  it('refuses the node answering another network`s magic at start, names it in a log line and /v1/health, and never uses it', async () => {
    expect(lines).toContainEqual({
      level: 'error',
      message: 'neo node refused',
      fields: {
        network: 'main',
        node: stranger.url,
        reason: expect.stringContaining(`answers network magic ${testnetMagic}`),
      },
    });
    const { network } = await health();
    expect(network.nodes[1]).toMatchObject({ url: stranger.url, status: 'refused', primary: false });
    expect(network.nodes[1]!.reason).toContain(String(testnetMagic));
    // Its path and query (a key) are shown nowhere.
    expect(JSON.stringify(network)).not.toContain('secret');
    const { key } = await issueKey(api.database.orm);
    // Reads through the API's default network go to the nodes in sync only.
    const account = await fetch(`${api.url}/v1/account`, { headers: { 'X-API-Key': key } });
    expect(account.status).toBe(200);
    expect(stranger.methods.filter((method) => !probeMethods.includes(method))).toEqual([]);
  });

  it('never makes the node 10 blocks behind primary, whatever its weight, and shows it lagging, its network degraded', async () => {
    const start = Date.now();
    const seen = await until(
      async () => (await health()).network,
      () => Date.now() - start > 5000,
      20_000,
    );
    expect(seen.nodes[0]).toMatchObject({ url: behind.url, status: 'lagging', primary: false });
    expect(seen.nodes[0]!.lagBlocks).toBeGreaterThanOrEqual(10);
    expect(seen.nodes[2]).toMatchObject({ url: inSync.url, status: 'ok', primary: true });
    expect(seen.status).toBe('degraded');
    expect(lines.filter((line) => line.message === 'neo primary changed').map((line) => line.fields?.to)).toEqual([
      inSync.url,
    ]);
    expect(behind.methods.filter((method) => !probeMethods.includes(method) && method !== 'getblockcount')).toEqual([]);
  });
});
