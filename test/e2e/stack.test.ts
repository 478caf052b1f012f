import { describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { createKeyWithCli, neoflow } from '../support/cli.ts';
import { testApi } from '../support/http.ts';
import { uniqueAccountName } from '../support/keys.ts';
import { until } from '../support/polling.ts';

const { apiUrl, uiUrl, env } = inject('stack');

interface Health {
  status: string;
  neo: { status: string; blockHeight: number };
  [component: string]: unknown;
}

const health = async () => (await (await fetch(`${apiUrl}/v1/health`)).json()) as Health;

describe('the stack from `neoflow up`', () => {
  it('reports PostgreSQL, Temporal and Neo ok', async () => {
    expect(await health()).toMatchObject({
      status: 'ok',
      postgres: { status: 'ok' },
      temporal: { status: 'ok' },
      neo: { status: 'ok' },
    });
  });

  it('serves the Temporal Web UI', async () => {
    const response = await fetch(uiUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/<html/i);
  });

  // Waits for the blocks rather than a fixed 10 s: done as soon as they are made, and a rate is no
  // bound for a loaded machine.
  it('produces Neo blocks: the height grows by 5', async () => {
    const before = (await health()).neo.blockHeight;
    const grown = await until(
      async () => (await health()).neo.blockHeight - before,
      (blocks) => blocks >= 5,
      50_000,
      500,
    );
    expect(grown).toBeGreaterThanOrEqual(5);
  });

  it('serves a key made with `neoflow keys create` in both header forms, until it is revoked', async () => {
    const account = uniqueAccountName('e2e');
    const key = await createKeyWithCli(env, account);
    for (const headers of [{ Authorization: `Bearer ${key}` }, { 'X-API-Key': key }]) {
      const response = await fetch(`${apiUrl}/v1/account`, { headers });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name: account });
    }
    const keyId = (await neoflow(['keys', 'list', '--account', account], env)).stdout.split(/\s+/)[0]!;
    expect(keyId).toMatch(/^key_/);
    expect((await neoflow(['keys', 'revoke', keyId], env)).code).toBe(0);
    const after = await fetch(`${apiUrl}/v1/account`, { headers: { 'X-API-Key': key } });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });

  it('funds the signer of an account made with `neoflow keys create` with 100 GAS on the dev chain', async () => {
    const account = uniqueAccountName('funded');
    const created = await neoflow(['keys', 'create', '--account', account], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.trimEnd().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^funding signer N\w{33} with 100 GAS .* done in [\d.]+ s/));
    const response = await fetch(`${apiUrl}/v1/account`, { headers: { 'X-API-Key': lines.at(-1)! } });
    const { signer } = (await response.json()) as { signer: { address: string } };
    const neo = createNeoRpc(`http://127.0.0.1:${env.NEOFLOW_NEO_RPC_PORT}`);
    expect(await neo.getBalance(signer.address, 'GAS')).toEqual({ asset: 'GAS', amount: '10000000000', decimals: 8 });
  });

  it('answers in each area’s error shape', async () => {
    const secrets = await fetch(`${apiUrl}/v1/secrets`);
    expect(await secrets.json()).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    const functions = await fetch(`${apiUrl}/v1/functions`);
    expect(await functions.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });
});

describe('functions on the stack from `neoflow up`', () => {
  it('deploys a function and invokes it, synchronously and asynchronously', async () => {
    const key = await createKeyWithCli(env, uniqueAccountName('e2e-fn'));
    const call = testApi(apiUrl, key);
    const code =
      'module.exports = async (context) => ({ height: await context.services.blockchain.getBlockCount(), n: context.params.n });';
    const created = await call('POST', '/functions', { name: 'e2e-height', code, runtime: 'node18' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    const sync = await call('POST', `/functions/${id}/invoke`, { params: { n: 7 } });
    expect(sync.status).toBe(200);
    expect(sync.body.data.result).toEqual({ height: expect.any(Number), n: 7 });

    const queued = await call('POST', `/functions/${id}/invoke`, { async: true, params: { n: 8 } });
    expect(queued.status).toBe(202);
    let status = 'running';
    for (let tries = 0; status === 'running' && tries < 100; tries++) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      status = (await call('GET', `/functions/${id}/executions/${queued.body.data.execution.id as string}`)).body.data
        .status as string;
    }
    expect(status).toBe('completed');
    const stats = (await call('GET', `/functions/${id}`)).body.data.stats;
    expect(stats.invocations).toMatchObject({ total: 2, success: 2, failed: 0 });
  });
});
