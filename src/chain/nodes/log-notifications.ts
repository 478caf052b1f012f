import type { BlockNotificationLists, ContainedNotification } from '../rpc.ts';
import type { StackItem } from '../stack-item.ts';
import type { BlockBody } from './read-ahead.ts';
import { resultOf, type BatchAnswer, type BatchCall, type BatchCaller } from './rpc-batch.ts';

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

/** A block's notifications, and the next block asked for with them: its body if the node held it. */
interface LogsRead {
  lists: BlockNotificationLists;
  ahead?: { index: number; body?: BlockBody };
}

/** Asks for block `index`'s body: a C# node answers it by index. */
export const bodyCall = (index: number): BatchCall => ({ method: 'getblock', params: [index, true] });

/**
 * What neo-go's `getblocknotifications` answers, built from a C# node's ApplicationLogs (issue 45):
 * the block's OnPersist then PostPersist executions from `getapplicationlog(blockHash)`, and each
 * transaction's from `getapplicationlog(txHash)` in the block's order. Only HALTed executions
 * count, as neo-go's: a FAULTed transaction's notifications were undone. Given the block's `body`
 * (read ahead), one batch asks for every log and the next block's body; without it, the body and
 * the block's log come first, then (for a block with transactions) their logs with the next body.
 * A next block not produced yet is no failure: `ahead` then has no body. A log the node does not
 * hold yet fails with its -32602, which the pool reads as "not yet".
 */
export async function notificationsFromLogs(
  batch: BatchCaller,
  blockHash: string,
  body?: BlockBody,
): Promise<LogsRead> {
  const logsOf = (block: BlockBody) => block.tx.map((transaction) => logCall(transaction.hash));
  let block = body;
  let logs: BatchAnswer[];
  let nextAnswer: BatchAnswer | undefined;
  if (block) {
    logs = await batch([logCall(blockHash), ...logsOf(block), bodyCall(block.index + 1)]);
    nextAnswer = logs.pop();
  } else {
    const [blockAnswer, blockLogAnswer] = await batch([
      { method: 'getblock', params: [blockHash, true] },
      logCall(blockHash),
    ]);
    block = resultOf<BlockBody>(blockAnswer!);
    // A block's log not there yet fails the read before its transactions' are asked for.
    resultOf<Log>(blockLogAnswer!);
    logs = [blockLogAnswer!];
    if (block.tx.length > 0) {
      logs.push(...(await batch([...logsOf(block), bodyCall(block.index + 1)])));
      nextAnswer = logs.pop();
    }
  }
  const blockLog = resultOf<Log>(logs[0]!);
  const ofBlock = (trigger: string) =>
    blockLog.executions
      .filter((execution) => execution.trigger === trigger && execution.vmstate === 'HALT')
      .flatMap((execution) => contained(execution, blockHash));
  const transactions = block.tx.map((transaction) => transaction.hash.toLowerCase());
  const lists = {
    onpersist: ofBlock('OnPersist'),
    application: transactions.flatMap((hash, index) =>
      resultOf<Log>(logs[index + 1]!)
        .executions.filter((execution) => execution.trigger === 'Application' && execution.vmstate === 'HALT')
        .flatMap((execution) => contained(execution, hash)),
    ),
    postpersist: ofBlock('PostPersist'),
  };
  if (!nextAnswer) return { lists };
  // Whatever the node answered for the next block ("unknown block" before it is produced), it is
  // only read ahead: the block itself is read, and its failures classed, when its turn comes.
  const index = block.index + 1;
  return { lists, ahead: 'result' in nextAnswer ? { index, body: nextAnswer.result as BlockBody } : { index } };
}

const logCall = (hash: string): BatchCall => ({ method: 'getapplicationlog', params: [hash] });

const contained = (execution: Execution, container: string): ContainedNotification[] =>
  (execution.notifications ?? []).map((notification) => ({
    container,
    contract: notification.contract,
    eventname: notification.eventname,
    state: notification.state,
  }));
