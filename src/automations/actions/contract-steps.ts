/**
 * actions/: what a run's action does. A contract call (these steps: test-invoke, price, hold to the
 * budget (budget-steps.ts), sign, store, relay, await its block), a function's decision of the calls to send
 * (decide-steps.ts, decision.ts), a webhook's POST (webhook-steps.ts), their dry runs; the writes
 * of a contract run, the signed transaction among them, are in run-contract.sql.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { callsScript, type ContractCall } from '../../chain/contract-calls.ts';
import { priceContractCall, relayUntilFinal, TransactionRejectedError } from '../../chain/contract-call.ts';
import { NeoRpcError } from '../../chain/rpc.ts';
import { networkOf, type NetworkNodes } from '../../chain/network-of.ts';
import { forgetSigningKey } from '../../signers/open-signing-key.ts';
import { signerOrDefault } from '../../signers/signer-or-default.ts';
import { senderOf, signerAttempts, signingEnd } from './signing-steps.ts';
import type { Pkcs11Module } from '../../signers/open-signing-key.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { resolveCalls } from './resolve-calls.ts';
import { refusedByAction } from './decision.ts';
import { reserveRunGas } from './budget-steps.ts';
import { settleReservationsOf } from '../budget/gas-spend.ts';
import { awaitingOf, awaitsApproval, endRefused, type AwaitingApproval } from '../approvals/approval-steps.ts';
import { AutomationRun } from '../model/run.entity.ts';
import {
  contractRunState,
  endSent,
  failUncalled,
  failUnsent,
  markRelayed,
  noteRelayError,
  recordSigner,
  storeCalls,
  storeTransaction,
} from './run-contract.sql.ts';
import { platformTimeoutName, runErrorName, runStatus, type RunStatus } from '../../shared/outcomes.ts';

export interface ChainDeps {
  em: EntityManager;
  /** Every configured network: a run reads, prices and sends on its own (`run.network`). */
  networks: NetworkNodes;
  masterKeys: MasterKeys;
  pkcs11?: Pkcs11Module;
}

/**
 * Test-invokes the contract call as the run's signer (its automation's): a FAULT ends the run with
 * the VM's exception and nothing is sent, and so does a fee over the budget, or a key that cannot
 * sign (signing-steps.ts; `attempt`, this activity's, says when a key not reachable now has had its
 * last). Otherwise the signed transaction is stored before anything is
 * relayed, and a repeated call finds it: one run, one transaction. Every write is conditional on
 * the run holding no transaction yet, and the answer is what the run holds after it: an attempt
 * that signed late (its activity retried meanwhile) neither replaces the stored transaction nor
 * fails the run that holds it.
 */
export async function prepareContractRun(
  deps: ChainDeps,
  runId: string,
  attempt = 1,
): Promise<RunStatus | 'sent' | AwaitingApproval> {
  const run = await deps.em.findOne(AutomationRun, { id: runId }, { populate: ['automation', 'txRaw'] });
  // A run deleted with its automation answers a failure: nothing left to do or to record.
  if (!run) return runStatus.failure;
  if (run.status !== runStatus.running) return run.status;
  if (run.txRaw) return 'sent';
  const automationId = run.automation.id;
  const decided = run.approval?.status;
  if (decided === 'rejected' || decided === 'expired') return endRefused(deps.em, runId, run.approval ?? null);
  // Waiting for approvals already (an earlier attempt asked): nothing is priced again until they come.
  const waiting = await awaitingOf(deps.em, { id: runId, automationId, approval: run.approval ?? null });
  if (waiting) return waiting;
  await prepareOrEnd(deps, run, attempt >= signerAttempts);
  await settleReservationsOf(deps.em, runId);
  const state = await contractRunState(deps.em, runId);
  if (!state) return runStatus.failure;
  if (state.status !== runStatus.running) return state.status;
  return state.sent ? 'sent' : ((await awaitingOf(deps.em, { ...state, id: runId, automationId })) ?? state.status);
}

/**
 * Stores the signed transaction on the run, or ends the run with what stops it: a template the
 * trigger cannot fill, a test run that faults, an account without a signer (made before signers
 * existed, with no key since), and a key that cannot sign, ended now with its cause instead of
 * being retried in vain. The signer is recorded on the run first: the one its automation names
 * (else the account's default) when it first prepares, and the same for every later attempt.
 */
async function prepareOrEnd(deps: ChainDeps, run: AutomationRun, lastAttempt: boolean) {
  const calls = await callsOf(deps.em, run);
  if (!calls) return;
  const signer = await signerOrDefault(deps.em, run.accountId, run.signerId ?? run.automation.signerId ?? null);
  if (!signer) {
    const error = { name: runErrorName.NoSigner, message: 'This account has no signer to send the call.' };
    return failUnsent(deps.em, run.id, error);
  }
  await recordSigner(deps.em, run.id, signer.id);
  try {
    const sender = await senderOf(deps, signer);
    const priced = await priceContractCall(networkOf(deps.networks, run.network), callsScript(calls), sender);
    if ('fault' in priced) {
      const error = { name: runErrorName.ContractFault, message: priced.fault };
      return await failUnsent(deps.em, run.id, error, { vmState: 'FAULT', gasConsumed: priced.gasConsumed });
    }
    // Its fees known, the transaction is signed only once they fit the budget (budget-steps.ts)
    // and, when its action asks for them, approvals were given (approvals/approval-steps.ts).
    if (!(await reserveRunGas(deps.em, run.id, priced))) return;
    if (await awaitsApproval(deps.em, run, priced)) return;
    const signed = { accountId: run.accountId, automationId: run.automation.id, signer, network: run.network };
    await storeTransaction(deps.em, run.id, await priced.sign(), { ...signed, fee: priced.fee });
  } catch (error) {
    const end = signingEnd(error, lastAttempt);
    if (!end) throw error;
    // The key failed to open or sign: the next attempt, or run, opens it anew.
    forgetSigningKey(signer.id);
    await failUnsent(deps.em, run.id, end);
  }
}

/**
 * The calls the run sends: those it holds (stored by an earlier attempt, or decided by its
 * function) while its action as it is now still allows them, else its contract action's with
 * their templates resolved against what fired it, stored before anything is signed. Null when the
 * run ended instead (its TemplateError, or InvalidDecision for calls its action refuses now), or
 * holds no calls to send.
 */
async function callsOf(em: EntityManager, run: AutomationRun): Promise<ContractCall[] | null> {
  const { action } = run.automation;
  if (run.calls) {
    const refused = refusedByAction(run.calls, action);
    if (refused === null) return run.calls;
    await failUnsent(em, run.id, { name: runErrorName.InvalidDecision, message: refused });
    return null;
  }
  if (action.type !== 'contract') {
    await failUncalled(em, run.id, { name: runErrorName.NoCalls, message: 'The run holds no calls to send.' });
    return null;
  }
  const { scriptHash, operation, args } = action;
  const resolved = resolveCalls([{ scriptHash, operation, args }], run.trigger);
  if (!Array.isArray(resolved)) {
    await failUncalled(em, run.id, resolved);
    return null;
  }
  return storeCalls(em, run.id, resolved);
}

/**
 * Relays the stored transaction until it is in a block or expired, and records the outcome: in a
 * block, what the VM did and the fees the transaction burned. While the chain cannot be reached or
 * read, the run keeps running (the transaction may be in a block, or land yet), with the trouble
 * on the run as `relayError`: only the chain's answer ends it, never an outage. So does a node's
 * refusal of a re-send once a node accepted the transaction (`tx_relayed`, kept on the run for the
 * attempts after): the run and its reservation stay until its block or its validUntilBlock passes.
 */
export async function relayContractRun(deps: ChainDeps, runId: string, onWait: () => void): Promise<RunStatus> {
  const run = await deps.em.findOne(AutomationRun, { id: runId }, { populate: ['txRaw'] });
  if (!run) return runStatus.failure;
  if (run.status !== runStatus.running) return run.status;
  const call = { hash: run.txHash!, rawTransaction: run.txRaw!, validUntilBlock: run.validUntilBlock! };
  let told: string | null = null;
  const onTrouble = async (error: unknown) => {
    const message = error === null ? null : troubleOf(error, call);
    if (message === told) return;
    told = message;
    await noteRelayError(deps.em, runId, message);
  };
  const onRelayed = () => markRelayed(deps.em, runId);
  const options = { onWait, onTrouble, onRelayed, relayedBefore: run.txRelayed };
  const result = await relayUntilFinal(networkOf(deps.networks, run.network), call, options).catch((error: unknown) => {
    if (error instanceof TransactionRejectedError) return error;
    throw error;
  });
  if (result instanceof TransactionRejectedError) {
    const message = `The node refused ${call.hash}: ${result.message}`;
    await endSent(deps.em, runId, runStatus.failure, { name: runErrorName.TransactionRejected, message }, null);
  } else if (result.outcome === 'expired') {
    const message = `${call.hash} was in no block up to ${call.validUntilBlock}.`;
    await endSent(deps.em, runId, runStatus.failure, { name: runErrorName.TransactionExpired, message }, null);
  } else {
    const { vmState, gasConsumed, systemFee, networkFee, exception } = result;
    const inBlock = { vmState, gasConsumed, systemFee, networkFee };
    const error = vmState === 'HALT' ? null : { name: runErrorName.ContractFault, message: exception ?? 'FAULT' };
    await endSent(deps.em, runId, error ? runStatus.failure : runStatus.success, error, inBlock);
  }
  await settleReservationsOf(deps.em, runId);
  return (await contractRunState(deps.em, runId))?.status ?? runStatus.failure;
}

/**
 * What a tenant may read of an error in reaching the chain: the node's own answer (its refusal of
 * a re-send among them), or that it was not reached; never the node's address.
 */
function troubleOf(error: unknown, call: { hash: string; validUntilBlock: number }): string {
  if (error instanceof TransactionRejectedError) {
    return `The node refused to take ${call.hash} again (${error.message}); a node accepted it before, so it may still be in a block up to ${call.validUntilBlock}.`;
  }
  if (error instanceof NeoRpcError) return error.message;
  if (error instanceof Error && error.name === platformTimeoutName) return 'The Neo node did not answer in time.';
  return 'The Neo node could not be reached.';
}
