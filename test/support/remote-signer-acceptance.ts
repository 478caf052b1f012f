import { wallet } from '@cityofzion/neon-js';
import { expect, inject } from 'vitest';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { type automationsClient, gasTransferAction, type Loose } from './automations.ts';
import { signerAttempts } from '../../src/automations/actions/signing-steps.ts';
import { endedRun, expectWitnessedBy, firedRun, gasOf } from './sent-transaction.ts';

/** A key held outside Neoflow (a KMS, an HSM), as a test of its custody backend names it. */
export interface RemoteKey {
  /** POST /v1/signers's body for the key, its name included. */
  body: Record<string, unknown>;
  /** Its public key, compressed, as the backend itself answers it (not through Neoflow). */
  publicKey: string;
  /** Takes the backend out of the worker's reach. */
  cutOff(): Promise<void>;
  /** Gives it back. */
  restore(): Promise<void>;
}

type Client = ReturnType<typeof automationsClient>;

const amount = 1234n;

/** The signer made from `key` over the API, funded, and a GAS transfer automation naming it. */
async function sendingAutomation(client: Client, key: RemoteKey) {
  const created = await client.call('POST', '/signers', key.body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const signer = created.body;
  expect(signer).toMatchObject({ type: key.body.type, publicKey: key.publicKey });
  expect(signer.address).toBe(new wallet.Account(key.publicKey).address);
  await fundFromDevWallet(inject('neoRpcUrl'), inject('devWallet'), signer.address as string, 10n ** 9n);
  const recipient = new wallet.Account(wallet.generatePrivateKey()).address;
  const automationId = await client.create({
    name: `sends with ${key.body.name as string}`,
    status: 'inactive',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { ...gasTransferAction(signer.address as string, recipient, String(amount)), signer: key.body.name },
  });
  return { address: signer.address as string, recipient, automationId };
}

/** A success that sent its transaction, the key's witness on it in a block. */
async function expectSentBy(run: Loose, publicKey: string) {
  expect(run, JSON.stringify(run.error)).toMatchObject({ status: 'success', vmState: 'HALT', error: null });
  await expectWitnessedBy(run.txHash as string, publicKey);
}

/**
 * Issue 46's two steps for a remote key, over the API: it becomes a signer whose address is its
 * public key's, and an automation naming it sends a transaction witnessed by that key; then, the
 * backend cut off, a run ends `SignerUnavailable` having sent nothing, and its retry once the
 * backend is back sends, once.
 */
export async function acceptsRemoteKey(client: Client, key: RemoteKey) {
  const { address, recipient, automationId } = await sendingAutomation(client, key);
  await expectSentBy(await firedRun(client.call, automationId), key.publicKey);
  expect(await gasOf(recipient)).toBe(amount);

  await key.cutOff();
  const balance = await gasOf(address);
  const unavailable = await firedRun(client.call, automationId);
  expect(unavailable).toMatchObject({ status: 'failure', error: { name: 'SignerUnavailable' } });
  // Ended after the activity's attempts, as "not now": not at once, as a key refused for good.
  expect(unavailable.error.message).toContain(`in ${signerAttempts} attempts`);
  expect(unavailable.txHash ?? null).toBeNull();
  expect(await gasOf(address)).toBe(balance);

  await key.restore();
  const retried = await client.call('POST', `/automations/${automationId}/runs/${unavailable.id as string}/retry`);
  expect(retried.status, JSON.stringify(retried.body)).toBe(202);
  const retry = await endedRun(client.call, automationId, retried.body.run.id as string);
  expect(retry.retryOf).toBe(unavailable.id);
  await expectSentBy(retry, key.publicKey);
  // Two transfers in all: the first run's and the retry's; the run that could not sign sent none.
  expect(await gasOf(recipient)).toBe(2n * amount);
  const runs = await client.runs(automationId);
  expect(runs.map((run) => run.status as string).sort()).toEqual(['failure', 'success', 'success']);
}
