import { readBlockTransactions, readOutcomes, type BlockTransaction } from '../../chain/block-transactions.ts';
import { readBlockNotifications, type BlockNotification } from '../../chain/blocks.ts';
import { rpcErrorCode, type NeoRpc } from '../../chain/rpc.ts';
import { AppError } from '../../errors.ts';
import { requestNetworkOf } from '../../chain/network-of.ts';
import type { Automation } from '../model/automation.entity.ts';
import type { BlockchainTrigger, TransactionTrigger } from '../model/trigger.schemas.ts';
import type { TestAutomation } from './trigger-test.schemas.ts';
import { createEventAbiCache } from '../../chain/blocks.ts';
import { notificationPayload, transactionPayload } from './block-matching.ts';
import { dryRunAction, type DryRun, type DryRunDeps } from '../actions/action-dry-run.ts';
import {
  explainNotification,
  explainTransaction,
  matchesTransaction,
  type MatchOutcome,
  type MatchReason,
} from './match.ts';
import { decodeState } from './notification-match.ts';
import type { FirePayload } from '../model/run.entity.ts';

/** One input the trigger was matched against, and why it did not match. */
interface Checked {
  txHash: string | null;
  blockIndex: number;
  /** A notification's: its index in its container, contract and event. */
  notificationIndex?: number;
  contract?: string;
  eventName?: string;
  matched: boolean;
  reasons?: MatchReason[];
}

interface TestAnswer {
  matched: boolean;
  /** The first `maxChecked` inputs, in chain order. */
  checked: Checked[];
  checkedTotal: number;
  /** What a run would have been given: the first match's payload, or the payload given. */
  fire?: FirePayload;
  dryRun?: DryRun;
}

/** A block may hold thousands of notifications: the answer lists this many. */
const maxChecked = 50;

/** neo-go's codes for an unknown transaction or block. */
const unknownItem = new Set([-100, -105, -109]);

/**
 * Answers, recording and sending nothing, whether `automation`'s trigger matches a transaction
 * or a block of the chain, condition by condition (explain-match.ts, the follower's own matcher),
 * and what its action would do with the first match (action-dry-run.ts). With `payload`, the
 * action is dry-run with that fire, matched against nothing.
 */
export async function testAutomation(
  deps: DryRunDeps,
  automation: Automation,
  input: TestAutomation,
): Promise<TestAnswer> {
  if (input.payload !== undefined) {
    const fire = input.payload as FirePayload;
    return { matched: true, checked: [], checkedTotal: 0, fire, dryRun: await dryRunAction(deps, automation, fire) };
  }
  const { trigger } = automation;
  if (trigger.type !== 'blockchain' && trigger.type !== 'transaction') {
    throw new AppError(
      'invalid_request',
      `A ${trigger.type} trigger is not matched against the chain: give a payload to dry-run its action.`,
      { field: 'txHash' },
    );
  }
  const neo = requestNetworkOf(deps.networks, automation.network);
  const found = await chainOrNotFound(input, () =>
    trigger.type === 'blockchain' ? notificationInputs(neo, trigger, input) : transactionInputs(neo, trigger, input),
  );
  const fire = found.find((one) => one.outcome.matched)?.fire;
  return {
    matched: fire !== undefined,
    checked: found.slice(0, maxChecked).map((one) => one.checked),
    checkedTotal: found.length,
    ...(fire ? { fire, dryRun: await dryRunAction(deps, automation, fire) } : {}),
  };
}

interface Input {
  outcome: MatchOutcome;
  checked: Checked;
  fire: FirePayload;
}

async function notificationInputs(neo: NeoRpc, trigger: BlockchainTrigger, input: TestAutomation): Promise<Input[]> {
  const notifications =
    input.txHash !== undefined
      ? await transactionNotifications(neo, input.txHash)
      : (await readBlockNotifications(neo, input.blockIndex!)).notifications;
  const abi = createEventAbiCache(neo);
  const inputs: Input[] = [];
  for (const notification of notifications) {
    const parameters = await abi.parameters(notification.contract, notification.eventName);
    const outcome = explainNotification(trigger, notification, parameters);
    inputs.push({
      outcome,
      checked: {
        txHash: notification.txHash,
        blockIndex: notification.blockIndex,
        notificationIndex: notification.notificationIndex,
        contract: notification.contract,
        eventName: notification.eventName,
        ...outcomeFields(outcome),
      },
      fire: notificationPayload(notification, outcome.matched ? decodeState(notification.state, parameters) : null),
    });
  }
  return inputs;
}

/** The notifications of one transaction, numbered as the follower numbers them. */
async function transactionNotifications(neo: NeoRpc, txHash: string): Promise<BlockNotification[]> {
  const hash = txHash.toLowerCase();
  const block = await blockOf(neo, hash);
  const [execution] = (await neo.getApplicationLog(hash)).executions;
  return (execution?.notifications ?? []).map((raw, notificationIndex) => ({
    blockIndex: block.index,
    blockHash: block.hash.toLowerCase(),
    container: hash,
    txHash: hash,
    notificationIndex,
    contract: raw.contract.toLowerCase(),
    eventName: raw.eventname,
    state: raw.state,
  }));
}

async function transactionInputs(neo: NeoRpc, trigger: TransactionTrigger, input: TestAutomation): Promise<Input[]> {
  const block =
    input.txHash !== undefined
      ? await blockOf(neo, input.txHash.toLowerCase())
      : { index: input.blockIndex!, hash: await neo.getBlockHash(input.blockIndex!) };
  const all = await readBlockTransactions(neo, block.index, block.hash.toLowerCase());
  const asked = input.txHash === undefined ? all : all.filter((one) => one.txHash === input.txHash!.toLowerCase());
  // As the follower does: the outcome is read for the transactions whose other conditions hold.
  const outcomes = new Map(
    (
      await readOutcomes(
        neo,
        asked.filter((one) => matchesTransaction(trigger, one)),
      )
    ).map((one) => [one.txHash, one]),
  );
  return asked.map((listed): Input => {
    const transaction: BlockTransaction = outcomes.get(listed.txHash) ?? listed;
    const outcome = explainTransaction(trigger, transaction);
    return {
      outcome,
      checked: { txHash: transaction.txHash, blockIndex: transaction.blockIndex, ...outcomeFields(outcome) },
      fire: transactionPayload(transaction),
    };
  });
}

const outcomeFields = (outcome: MatchOutcome) =>
  outcome.matched ? { matched: true } : { matched: false, reasons: outcome.reasons };

/** The block that holds the transaction `hash`. */
async function blockOf(neo: NeoRpc, hash: string): Promise<{ index: number; hash: string }> {
  const status = await neo.getTransaction(hash);
  if (!status.blockhash) {
    throw new AppError('conflict', `The transaction ${hash} is not in a block yet.`, { field: 'txHash' });
  }
  const block = await neo.getBlock(status.blockhash);
  return { index: block.index, hash: block.hash };
}

/** What the chain does not hold is the request's fault: 404, not a failure of the service. */
async function chainOrNotFound<T>(input: TestAutomation, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const code = rpcErrorCode(error);
    if (code !== undefined && unknownItem.has(code)) {
      const field = input.txHash !== undefined ? 'txHash' : 'blockIndex';
      throw new AppError('not_found', `No such ${field === 'txHash' ? 'transaction' : 'block'} on this network.`, {
        field,
      });
    }
    throw error;
  }
}
