import { readBlockTransactions, readOutcomes, type BlockTransaction } from '../chain/block-transactions.ts';
import type { BlockNotification, BlockNotifications, EventParameter } from '../chain/blocks.ts';
import type { NeoRpc } from '../chain/rpc.ts';
import type { BlockchainTrigger, FollowedTrigger, TransactionTrigger } from './automations.schemas.ts';
import { listOf, matchesNotification, matchesTransaction } from './explain-match.ts';
import { decodeState } from './notification-match.ts';
import { quarantine } from './quarantine.ts';
import type { FirePayload } from './run.entity.ts';
import type { Firing } from './runs.ts';

/** An active automation the block follower serves, as the follower reads it for every round. */
export interface Watcher {
  id: string;
  account: { id: string };
  trigger: FollowedTrigger;
  /** The first block it watches. */
  watchFromBlock: number;
}

/** Event parameter names and types by contract and event (see chain/blocks.ts). */
export interface EventAbi {
  parameters(contract: string, eventName: string): Promise<EventParameter[] | null>;
}

/**
 * A block as matched: its notifications, and its transactions when a transaction trigger watches
 * (withTransactions); without them, transaction triggers match nothing.
 */
type MatchedBlock = BlockNotifications & { transactions?: BlockTransaction[] };

type Watching<T extends FollowedTrigger> = Watcher & { trigger: T };
const watchesNotifications = (watcher: Watcher): watcher is Watching<BlockchainTrigger> =>
  watcher.trigger.type === 'blockchain';
const watchesTransactions = (watcher: Watcher): watcher is Watching<TransactionTrigger> =>
  watcher.trigger.type === 'transaction';

/**
 * The firings one block causes among the active automations the follower serves. Notifications
 * are grouped by contract first, so the work grows with matches, not automations × notifications.
 */
export async function firingsOfBlock(block: MatchedBlock, watchers: Watcher[], abi: EventAbi): Promise<Firing[]> {
  const byContract = Map.groupBy(block.notifications, (notification) => notification.contract);
  const firings: Firing[] = [];
  for (const automation of watchers) {
    if (automation.watchFromBlock > block.blockIndex) continue;
    if (watchesTransactions(automation)) {
      firings.push(...transactionFirings(automation, block.transactions ?? []));
      continue;
    }
    if (!watchesNotifications(automation)) continue;
    for (const contract of listOf(automation.trigger.scriptHash)) {
      for (const notification of byContract.get(contract.toLowerCase()) ?? []) {
        const parameters = await abi.parameters(notification.contract, notification.eventName);
        const firing = firingIfMatches(automation, notification, parameters);
        if (firing) firings.push(firing);
      }
    }
  }
  return firings;
}

/**
 * `block` with the transactions the transaction triggers among `watchers` may match: one
 * `getblock`, then one `getapplicationlog` for each transaction whose sender and calls match a
 * trigger (its VM state is then known). Without such a watcher, no call at all.
 */
export async function withTransactions(
  neo: NeoRpc,
  block: BlockNotifications,
  watchers: Watcher[],
): Promise<MatchedBlock> {
  const watching = watchers.filter(watchesTransactions).filter((watcher) => watcher.watchFromBlock <= block.blockIndex);
  if (watching.length === 0) return block;
  const all = await readBlockTransactions(neo, block.blockIndex, block.blockHash);
  // One that cannot be matched is read too: its firing is then quarantined (transactionFirings).
  const candidates = all.filter((transaction) =>
    watching.some((watcher) => attempt(() => matchesTransaction(watcher.trigger, transaction), true)),
  );
  return { ...block, transactions: await readOutcomes(neo, candidates) };
}

/**
 * A transaction fires a trigger once, named by its hash; one this automation cannot match fires it
 * quarantined, as a notification does.
 */
function transactionFirings(automation: Watching<TransactionTrigger>, transactions: BlockTransaction[]): Firing[] {
  return transactions.flatMap((transaction) => {
    const firing = { automation, fireKey: `tx:${transaction.txHash}`, payload: transactionPayload(transaction) };
    try {
      return transaction.vmState !== null && matchesTransaction(automation.trigger, transaction) ? [firing] : [];
    } catch (error) {
      return [quarantine(firing, error)];
    }
  });
}

/** What a transaction trigger's run is given: the transaction, its outcome and the calls it makes. */
export function transactionPayload(transaction: BlockTransaction): FirePayload {
  return {
    type: 'transaction',
    txHash: transaction.txHash,
    blockHash: transaction.blockHash,
    blockIndex: transaction.blockIndex,
    sender: transaction.sender,
    vmState: transaction.vmState ?? 'FAULT',
    exception: transaction.exception,
    calls: transaction.calls.slice(0, maxPayloadCalls),
  };
}

function attempt<T>(work: () => T, onError: T): T {
  try {
    return work();
  } catch {
    return onError;
  }
}

/** The calls a transaction payload lists: a script may make thousands. */
const maxPayloadCalls = 16;

/**
 * The automation's firing if the notification matches it. A notification this automation cannot
 * match or decode fires it quarantined (quarantine.ts): its own failed run, never a stopped follower.
 */
function firingIfMatches(
  automation: Watching<BlockchainTrigger>,
  notification: BlockNotification,
  parameters: EventParameter[] | null,
) {
  try {
    if (!matchesNotification(automation.trigger, notification, parameters)) return null;
    return notificationFiring(automation, notification, decodeState(notification.state, parameters));
  } catch (error) {
    return quarantine(notificationFiring(automation, notification, null), error);
  }
}

/** Named by its container and position: a notification fires an automation once, ever. */
function notificationFiring(automation: Watcher, notification: BlockNotification, state: unknown): Firing {
  return {
    automation,
    fireKey: `event:${notification.container}:${notification.notificationIndex}`,
    payload: notificationPayload(notification, state),
  };
}

/** What a blockchain trigger's run is given: the notification and its decoded arguments. */
export function notificationPayload(notification: BlockNotification, state: unknown): FirePayload {
  return {
    type: 'blockchain',
    scriptHash: notification.contract,
    eventName: notification.eventName,
    state,
    txHash: notification.txHash,
    blockHash: notification.blockHash,
    blockIndex: notification.blockIndex,
    notificationIndex: notification.notificationIndex,
  };
}
