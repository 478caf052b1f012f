import { readBlockTransactions, readOutcomes, type BlockTransaction } from '../../chain/block-transactions.ts';
import type { BlockNotification, BlockNotifications, EventParameter } from '../../chain/blocks.ts';
import type { NeoRpc } from '../../chain/rpc.ts';
import type { BlockchainTrigger, FollowedTrigger, TransactionTrigger } from '../model/trigger.schemas.ts';
import { firstFilterCondition, hash160Argument, listOf, matchesNotification, matchesTransaction } from './match.ts';
import { decodeState } from './notification-match.ts';
import { quarantine } from './quarantine.ts';
import type { FirePayload } from '../model/run.entity.ts';
import type { Firing } from '../runs/fires.ts';

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
 * The firings one block causes among the active automations the follower serves, in the order of
 * `watchers` (then of each one's contracts, then of the block). Only the watchers `indexOf` cannot
 * rule out are matched against a notification, so the work grows with the notifications and the
 * matches, not with the watchers of their contract.
 */
export async function firingsOfBlock(block: MatchedBlock, watchers: Watcher[], abi: EventAbi): Promise<Firing[]> {
  const index = indexOf(watchers);
  const armed = (watcher: Watcher) => watcher.watchFromBlock <= block.blockIndex;
  const fired: { rank: number; at: number; firing: Firing }[] = [];
  for (const { automation, rank } of index.transactions) {
    if (!armed(automation)) continue;
    for (const [at, firing] of transactionFirings(automation, block.transactions ?? []).entries()) {
      fired.push({ rank, at, firing });
    }
  }
  for (const [at, notification] of block.notifications.entries()) {
    const watching = index.contracts.get(notification.contract);
    if (!watching || watching.firstBlock > block.blockIndex) continue;
    const parameters = await abi.parameters(notification.contract, notification.eventName);
    for (const { automation, rank } of candidates(watching, notification, parameters)) {
      if (!armed(automation)) continue;
      const firing = firingIfMatches(automation, notification, parameters);
      if (firing) fired.push({ rank, at, firing });
    }
  }
  return fired.sort((a, b) => a.rank - b.rank || a.at - b.at).map(({ firing }) => firing);
}

/** A watcher, ranked by where its firings come among a block's: by watcher, then by its contract. */
interface Ranked<T extends FollowedTrigger> {
  automation: Watching<T>;
  rank: number;
}

/** The blockchain watchers of one contract. */
interface ContractWatchers {
  all: Ranked<BlockchainTrigger>[];
  /** Those whose first filter condition is no equality with a string: matched with every notification. */
  always: Ranked<BlockchainTrigger>[];
  /** The others, by the key of that condition, then by the account its value names (`Condition.account`). */
  byFirstKey: Map<string, Map<string | null, Ranked<BlockchainTrigger>[]>>;
  /** The first block any of them watches. */
  firstBlock: number;
}

interface MatchIndex {
  /** By contract as the node names a notification's (`0x`, lower case). */
  contracts: Map<string, ContractWatchers>;
  transactions: Ranked<TransactionTrigger>[];
}

/** The follower passes the same list until its watchers change (watcher-index.ts): indexed once. */
const indexes = new WeakMap<Watcher[], MatchIndex>();

function indexOf(watchers: Watcher[]): MatchIndex {
  let index = indexes.get(watchers);
  if (index) return index;
  index = { contracts: new Map(), transactions: [] };
  let rank = 0;
  for (const automation of watchers) {
    if (watchesTransactions(automation)) index.transactions.push({ automation, rank: rank++ });
    if (!watchesNotifications(automation)) continue;
    const first = firstEquality(automation.trigger);
    for (const contract of listOf(automation.trigger.scriptHash)) {
      const ranked = { automation, rank: rank++ };
      const watching = watchersOf(index, contract.toLowerCase());
      watching.all.push(ranked);
      watching.firstBlock = Math.min(watching.firstBlock, automation.watchFromBlock);
      if (!first) {
        watching.always.push(ranked);
        continue;
      }
      const byKey = watching.byFirstKey.get(first.key) ?? new Map<string | null, Ranked<BlockchainTrigger>[]>();
      watching.byFirstKey.set(first.key, byKey);
      const sameAccount = byKey.get(first.account);
      if (sameAccount) sameAccount.push(ranked);
      else byKey.set(first.account, [ranked]);
    }
  }
  indexes.set(watchers, index);
  return index;
}

function watchersOf(index: MatchIndex, contract: string): ContractWatchers {
  let watching = index.contracts.get(contract);
  if (!watching) {
    watching = { all: [], always: [], byFirstKey: new Map(), firstBlock: Number.POSITIVE_INFINITY };
    index.contracts.set(contract, watching);
  }
  return watching;
}

/**
 * The key and the account of a trigger's first filter condition when it is equality with a string:
 * for an argument typed Hash160 it holds only where the argument reads as that account. Null for
 * any other trigger, or one whose value cannot be read (then every comparison with it throws).
 */
function firstEquality(trigger: BlockchainTrigger): { key: string; account: string | null } | null {
  const first = firstFilterCondition(trigger);
  if (!first || typeof first.expected !== 'string') return null;
  try {
    return { key: first.key, account: first.account() };
  } catch {
    return null;
  }
}

/**
 * The watchers of a contract a notification may match (or fail to be matched with): a watcher whose
 * first filter condition does not hold can do neither (`firstFilterCondition`). Without the
 * event's ABI, or where the argument that condition names is not known to be a Hash160, all of them.
 */
function candidates(
  watching: ContractWatchers,
  notification: BlockNotification,
  parameters: EventParameter[] | null,
): Ranked<BlockchainTrigger>[] {
  if (parameters === null) return watching.all;
  const found = [watching.always];
  for (const [key, byAccount] of watching.byFirstKey) {
    const argument = hash160Argument(notification, parameters, key);
    if (argument === 'unknown') found.push(...byAccount.values());
    else if (argument !== 'none') found.push(byAccount.get(argument.read) ?? []);
  }
  return found.flat();
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
