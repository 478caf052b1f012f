import type { BlockNotificationLists, ContainedNotification } from '../rpc.ts';
import type { StackItem } from '../stack-item.ts';
import { resultOf, type BatchCaller } from './rpc-batch.ts';

interface LogNotification {
  contract: string;
  eventname: string;
  state: StackItem;
}

interface Execution {
  trigger: string;
  vmstate: string;
  notifications?: LogNotification[];
}

interface Log {
  executions: Execution[];
}

interface VerboseBlock {
  hash: string;
  tx: { hash: string }[];
}

/**
 * What neo-go's `getblocknotifications` answers, built from a C# node's ApplicationLogs (issue 45):
 * the block's OnPersist then PostPersist executions from `getapplicationlog(blockHash)`, and each
 * transaction's from `getapplicationlog(txHash)` in the block's order. Only HALTed executions
 * count, as neo-go's: a FAULTed transaction's notifications were undone. A block without
 * transactions takes one round trip (the block and its log together), any other two. A log the
 * node does not hold yet fails with its -32602, which the pool reads as "not yet".
 */
export async function notificationsFromLogs(batch: BatchCaller, blockHash: string): Promise<BlockNotificationLists> {
  const [blockAnswer, blockLogAnswer] = await batch([
    { method: 'getblock', params: [blockHash, true] },
    { method: 'getapplicationlog', params: [blockHash] },
  ]);
  const block = resultOf<VerboseBlock>(blockAnswer!);
  const blockLog = resultOf<Log>(blockLogAnswer!);
  const transactions = block.tx.map((transaction) => transaction.hash.toLowerCase());
  const transactionLogs =
    transactions.length === 0
      ? []
      : await batch(transactions.map((hash) => ({ method: 'getapplicationlog', params: [hash] })));
  const ofBlock = (trigger: string) =>
    blockLog.executions
      .filter((execution) => execution.trigger === trigger && execution.vmstate === 'HALT')
      .flatMap((execution) => contained(execution, blockHash));
  return {
    onpersist: ofBlock('OnPersist'),
    application: transactions.flatMap((hash, index) =>
      resultOf<Log>(transactionLogs[index]!)
        .executions.filter((execution) => execution.trigger === 'Application' && execution.vmstate === 'HALT')
        .flatMap((execution) => contained(execution, hash)),
    ),
    postpersist: ofBlock('PostPersist'),
  };
}

const contained = (execution: Execution, container: string): ContainedNotification[] =>
  (execution.notifications ?? []).map((notification) => ({
    container,
    contract: notification.contract,
    eventname: notification.eventname,
    state: notification.state,
  }));
