import { rpc, tx, wallet } from '@cityofzion/neon-js';
import { expect, inject } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import type { Loose } from './automations.ts';
import { until } from './polling.ts';

const neo = () => createNeoRpc(inject('neoRpcUrl'));

/** An address's GAS, in fractions. */
export const gasOf = async (address: string) => BigInt((await neo().getBalance(address, 'GAS')).amount);

/**
 * Proves a transaction is in a block, HALT, and witnessed by `publicKey` alone: read back from the
 * chain (not from Neoflow's record), its one witness's verification script is that key's, and its
 * signature verifies, by neon-js, over the sign data of this network (magic ‖ hash).
 */
export async function expectWitnessedBy(txHash: string, publicKey: string) {
  const status = await neo().getTransaction(txHash);
  expect(status).toMatchObject({ blockhash: expect.any(String), vmstate: 'HALT' });
  const raw = await new rpc.RPCClient(inject('neoRpcUrl')).getRawTransaction(txHash, false);
  const sent = tx.Transaction.deserialize(Buffer.from(raw, 'base64').toString('hex'));
  expect(sent.witnesses).toHaveLength(1);
  const [witness] = sent.witnesses;
  expect(witness!.verificationScript.toBigEndian()).toBe(wallet.getVerificationScriptFromPublicKey(publicKey));
  // The invocation script is PUSHDATA1 (0x0c) of 64 bytes (0x40): the r‖s signature.
  const invocation = witness!.invocationScript.toBigEndian();
  expect(invocation.slice(0, 4)).toBe('0c40');
  const signData = sent.getMessageForSigning(await neo().getNetworkMagic());
  expect(wallet.verify(signData, invocation.slice(4), publicKey)).toBe(true);
}

/** Calls of one account's API key, answered loosely. */
export type ApiCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Loose }>;

/** The run, once it ended. */
export const endedRun = (call: ApiCall, automationId: string, runId: string) =>
  until<Loose>(
    async () => (await call('GET', `/automations/${automationId}/runs/${runId}`)).body,
    (run) => run.status !== 'running',
    90_000,
  );

/** Fires the automation by hand and answers its run once it ended. */
export async function firedRun(call: ApiCall, automationId: string): Promise<Loose> {
  const fired = await call('POST', `/automations/${automationId}/trigger`);
  expect(fired.status, JSON.stringify(fired.body)).toBe(202);
  return endedRun(call, automationId, fired.body.run.id as string);
}
