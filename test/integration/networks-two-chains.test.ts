import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followerId } from '../../src/automations/blocks/follower.control.ts';
import { gasText } from '../../src/chain/gas-amount.ts';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import type { TestApi } from '../support/api.ts';
import { automationsClient, fireKeysOf, gasHash, gasTransferAction, settled } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import {
  fundOnChains,
  sharedChain,
  startSecondChain,
  type DevChain,
  type SecondChain,
} from '../support/second-chain.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

/**
 * Issue 45, item 4: one deployment follows two private neo-go networks of different magics,
 * `alpha` (the tests' shared chain) and `beta` (a chain of this file). An automation watches and
 * sends on its own network only.
 */
const oneGas = 10n ** 8n;
const signerGas = 10n * oneGas;

let alpha: DevChain;
let beta: SecondChain;
let api: TestApi;
let worker: RunningWorker;
let taskQueue: string;
let client: ReturnType<typeof automationsClient>;
let signer: string;
beforeAll(async () => {
  alpha = sharedChain();
  beta = await startSecondChain();
  const networks = [
    { name: 'alpha', rpc: [alpha.rpcUrl] },
    { name: 'beta', rpc: [beta.rpcUrl] },
  ];
  // NEO_RPC_URL emptied: the tests' workers name the shared node there by default.
  const env = { NEOFLOW_NETWORKS: JSON.stringify(networks), NEO_RPC_URL: '' };
  ({ api, worker, taskQueue } = await startApiWithWorker({ hostWorker: false, env }));
  const issued = await issueKey(api.database.orm);
  signer = issued.signer.address;
  client = automationsClient(api.url, issued.key);
  await fundOnChains([alpha, beta], signer, signerGas);
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await beta?.stop();
});

const rpcOf = (chain: DevChain) => createNeoRpc(chain.rpcUrl);
const gasOn = async (chain: DevChain, address: string) =>
  BigInt((await rpcOf(chain).getBalance(address, 'GAS')).amount);
const freshAddress = () => new wallet.Account(wallet.generatePrivateKey()).address;
const blockOf = async (chain: DevChain, txHash: string) => {
  const rpc = rpcOf(chain);
  return (await rpc.getBlock((await rpc.getTransaction(txHash)).blockhash!)).index;
};
/** Each network's block cursor (keyed by its magic, as text): the next block its follower reads. */
const cursors = async () => {
  const rows = await api.database.orm.em
    .fork()
    .getConnection()
    .execute<{ network: string; next_index: number }[]>('select "network", "next_index" from "block_cursors"');
  return new Map(rows.map((row) => [row.network, Number(row.next_index)]));
};

describe('two private networks of different magics in one deployment', () => {
  it('runs both chains, each with its own magic, the signer funded on both, and /v1/health lists both networks', async () => {
    const [alphaMagic, betaMagic] = await Promise.all([alpha, beta].map((chain) => rpcOf(chain).getNetworkMagic()));
    expect(betaMagic).toBe(beta.magic);
    expect(alphaMagic).not.toBe(betaMagic);
    expect(await Promise.all([gasOn(alpha, signer), gasOn(beta, signer)])).toEqual([signerGas, signerGas]);
    const health = (await (await fetch(`${api.url}/v1/health`)).json()) as {
      neo: { networks: { name: string; magic: number | null; status: string }[] };
    };
    expect(health.neo.networks).toMatchObject([
      { name: 'alpha', magic: alphaMagic, status: 'ok' },
      { name: 'beta', magic: betaMagic, status: 'ok' },
    ]);
  });

  it('fires a GAS Transfer watcher on each network only for its own chain`s transfers, once each, by one follower per magic', async () => {
    const watched = freshAddress();
    const functionId = await client.deploy('module.exports = async (context) => context.params.trigger;');
    const watcherOn = (network: string) =>
      client.create({
        name: `transfers on ${network}`,
        network,
        trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer', filter: { to: watched } },
        action: { type: 'function', functionId },
      });
    const watchers = { alpha: await watcherOn('alpha'), beta: await watcherOn('beta') };
    // Two transfers to the watched address on each chain, the chains at once.
    const transfersOn = async (chain: DevChain) => [
      await fundFromDevWallet(chain.rpcUrl, chain.wallet, watched, 1n),
      await fundFromDevWallet(chain.rpcUrl, chain.wallet, watched, 2n),
    ];
    const [onAlpha, onBeta] = await Promise.all([transfersOn(alpha), transfersOn(beta)]);
    const lastBlocks = await Promise.all([blockOf(alpha, onAlpha[1]!), blockOf(beta, onBeta[1]!)]);
    // Both followers past both chains' transfers: whatever either would fire for them is recorded.
    const magics = [String(await rpcOf(alpha).getNetworkMagic()), String(beta.magic)];
    const followed = await until(
      cursors,
      (next) => magics.every((magic, index) => (next.get(magic) ?? 0) > lastBlocks[index]!),
      30_000,
    );
    expect([...followed.keys()].sort()).toEqual([...magics].sort());
    const runs = await until(
      () => Promise.all([client.runs(watchers.alpha), client.runs(watchers.beta)]),
      (lists) => lists.every((listed) => listed.length >= 2 && settled(listed)),
      20_000,
    );
    expect(await fireKeysOf(api, watchers.alpha)).toEqual(onAlpha.map((hash) => `event:${hash}:0`).sort());
    expect(await fireKeysOf(api, watchers.beta)).toEqual(onBeta.map((hash) => `event:${hash}:0`).sort());
    const ranOn = (network: string) => ({ status: 'success', network });
    expect(runs).toMatchObject([
      [ranOn('alpha'), ranOn('alpha')],
      [ranOn('beta'), ranOn('beta')],
    ]);
    // One follower workflow per network, named by its magic, both running.
    const described = await Promise.all(
      magics.map((magic) => api.services.temporal.client.workflow.getHandle(followerId(magic, taskQueue)).describe()),
    );
    expect(described.map((execution) => execution.status.name)).toEqual(['RUNNING', 'RUNNING']);
  });

  it('sends a contract action on beta with the signer`s GAS of beta: beta`s balances and spend move, alpha`s do not', async () => {
    const recipient = freshAddress();
    const amount = oneGas;
    const [alphaBefore, betaBefore] = await Promise.all([gasOn(alpha, signer), gasOn(beta, signer)]);
    const automationId = await client.create({
      name: 'pays on beta',
      network: 'beta',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: gasTransferAction(signer, recipient, String(amount)),
    });
    expect((await client.call('GET', `/automations/${automationId}`)).body).toMatchObject({ network: 'beta' });
    const fired = await client.call('POST', `/automations/${automationId}/trigger`);
    expect(fired.status, JSON.stringify(fired.body)).toBe(202);
    const runs = await until(
      () => client.runs(automationId),
      (listed) => listed.length === 1 && settled(listed),
      30_000,
    );
    const run = runs[0]!;
    expect(run, JSON.stringify(run)).toMatchObject({ status: 'success', network: 'beta', vmState: 'HALT' });
    const fee = BigInt(run.systemFee) + BigInt(run.networkFee);
    expect(await Promise.all([gasOn(beta, recipient), gasOn(beta, signer)])).toEqual([
      amount,
      betaBefore - amount - fee,
    ]);
    expect(await Promise.all([gasOn(alpha, recipient), gasOn(alpha, signer)])).toEqual([0n, alphaBefore]);
    // The account shows the signer's GAS and spend per network: the fee is beta's alone.
    const account = (await client.call('GET', '/account')).body;
    expect(account.networks).toMatchObject([
      { name: 'alpha', gasBalance: gasText(alphaBefore), spend: { total: gasText(0n) } },
      { name: 'beta', gasBalance: gasText(betaBefore - amount - fee), spend: { total: gasText(fee) } },
    ]);
    // The transaction is beta's: alpha's node does not know it.
    expect((await rpcOf(beta).getTransaction(String(run.txHash))).hash).toBe(run.txHash);
    await expect(rpcOf(alpha).getTransaction(String(run.txHash))).rejects.toThrow();
  });
});
