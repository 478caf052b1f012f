import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { freePort } from '../../src/net/ports.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { startNeoDevnet, type NeoDevnet } from '../../src/stack/neo-devnet.ts';
import { automationsClient, gasTransferAction, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import type { TestApi } from '../support/api.ts';

/**
 * A minute and more without the node: before the fix the relay's retry budget (20 attempts) ran
 * out and ended the run `failure`. Here each relay attempt ends after `relayAttemptSeconds` (as one
 * ends after 25 minutes in production), so the outage spans several attempts and their retries, an
 * operator's cancel and the recovery sweep's restart of the run's action. The chain makes no block
 * while its only node is down, so the transaction's validUntilBlock cannot pass during the outage.
 */
const outageMs = 70_000;
const relayAttemptSeconds = 15;

// The node of this file alone: stopping it must not stop the other files' chain.
let scratch: string;
let rpcPort: number;
let node: NeoDevnet | undefined;
let api: TestApi;
let worker: RunningWorker;
let client: ReturnType<typeof automationsClient>;
let signer: { address: string };

const startNode = async () => {
  node = await startNeoDevnet({ neoGoPath: inject('neoGoPath'), dataDir: join(scratch, 'neo'), rpcPort });
  return node;
};
const neo = () => createNeoRpc(node!.rpcUrl);
const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-outage-'));
  rpcPort = await freePort();
  const devnet = await startNode();
  const env = {
    NEO_RPC_URL: devnet.rpcUrl,
    NEOFLOW_RELAY_ATTEMPT_SECONDS: String(relayAttemptSeconds),
    // The sweep every 5 s, and a run's action closed over 5 s ago counts as closed.
    NEOFLOW_RECOVERY_SECONDS: '5',
  };
  ({ api, worker } = await startApiWithWorker({ env }));
  let key: string;
  ({ key, signer } = await issueKey(api.database.orm));
  client = automationsClient(api.url, key);
  await fundFromDevWallet(devnet.rpcUrl, devnet.wallet, signer.address, 10n ** 9n);
}, 180_000);
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await node?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const runOf = async (automationId: string, runId: string): Promise<Loose> => {
  const read = await client.call('GET', `/automations/${automationId}/runs/${runId}`);
  expect(read.status).toBe(200);
  return read.body;
};

describe('fault: the chain`s only node stops for minutes after a contract run signed its transaction', () => {
  it(
    'keeps the run running through the outage, relay attempts and an operator`s cancel, refuses its retry, and lands the transaction once afterwards',
    async () => {
      const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
      const automationId = await client.create({
        name: 'outage',
        status: 'inactive',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: gasTransferAction(signer.address, recipient, '1234567'),
      });
      const fired = await client.call('POST', `/automations/${automationId}/trigger`);
      expect(fired.status).toBe(202);
      const runId = fired.body.run.id as string;
      const signed = await until(
        () => runOf(automationId, runId),
        (run) => Boolean(run.txHash),
        60_000,
        50,
      );
      expect(signed.status).toBe('running');

      await node!.stop();
      const seen = new Set<string>();
      const troubles = new Set<string | null>();
      const retries: number[] = [];
      const outageEnds = Date.now() + outageMs;
      const action = () => api.services.temporal.client.workflow.getHandle(runId);
      let cancelled: string | undefined;
      while (Date.now() < outageEnds) {
        // An operator cancels the run's action while it relays: the transaction may land yet.
        if (!cancelled && Date.now() > outageEnds - outageMs + 10_000) {
          cancelled = (await action().describe()).runId;
          await action().cancel();
        }
        const run = await runOf(automationId, runId);
        seen.add(run.status);
        troubles.add(run.relayError as string | null);
        if (run.status !== 'running') {
          retries.push((await client.call('POST', `/automations/${automationId}/runs/${runId}/retry`)).status);
        }
        await sleep(5_000);
      }
      const retried = await client.call('POST', `/automations/${automationId}/runs/${runId}/retry`);
      expect({ seen: [...seen], retries, retry: retried.status }).toEqual({
        seen: ['running'],
        retries: [],
        retry: 409,
      });
      // Why it waits is on the run, without the node's address.
      expect([...troubles]).toContain('The Neo node could not be reached.');
      // The sweep started the cancelled action again; its relay went through attempts that ended.
      const relaying = await action().describe();
      expect(relaying.runId).not.toBe(cancelled);
      expect(relaying.status.name).toBe('RUNNING');
      expect(relaying.raw.pendingActivities?.[0]?.attempt).toBeGreaterThan(1);

      await startNode();
      const landed = await until(
        () => runOf(automationId, runId),
        (run) => run.status !== 'running',
        180_000,
        500,
      );
      expect(landed).toMatchObject({
        status: 'success',
        vmState: 'HALT',
        txHash: signed.txHash,
        relayError: null,
        error: null,
      });
      expect((await neo().getTransaction(signed.txHash as string)).blockhash).toMatch(/^0x[0-9a-f]{64}$/);
      // Once: the recipient got the amount a single time, and the automation made no other run.
      expect(await gasOf(recipient)).toBe(1_234_567n);
      expect((await client.runs(automationId)).map((run) => run.id as string)).toEqual([runId]);
    },
    outageMs + 300_000,
  );
});
