import type { BlockNotificationLists, ContainedNotification } from '../rpc.ts';
import type { StackItem } from '../stack-item.ts';
import { bodyCall, logCall, logCalls, type BlockBody, type ReadPlan } from './read-plan.ts';
import { resultOf, type BatchAnswer, type BatchCaller } from './rpc-batch.ts';

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

/** A block's body and notifications, and the next block asked for with them: its body if the node held it. */
interface LogsRead {
  block: BlockBody;
  lists: BlockNotificationLists;
  ahead?: { index: number; body?: BlockBody };
}

/** What a read by plan gave: each block's notifications or why not, and the bodies, in order, as far as the node held them. */
interface PlannedRead {
  blocks: { block: BlockBody; lists?: BlockNotificationLists; error?: unknown }[];
  bodies: BlockBody[];
}

/**
 * What neo-go's `getblocknotifications` answers, built from a C# node's ApplicationLogs (issue 45):
 * the block's OnPersist then PostPersist executions from `getapplicationlog(blockHash)`, and each
 * transaction's from `getapplicationlog(txHash)` in the block's order. Only HALTed executions
 * count, as neo-go's: a FAULTed transaction's notifications were undone. With no body of the block
 * read ahead, the body and the block's log come first, then (for a block with transactions) their
 * logs with the next body. A next block not produced yet is no failure: `ahead` then has no body.
 * A log the node does not hold yet fails with its -32602, which the pool reads as "not yet".
 */
export async function notificationsFromLogs(batch: BatchCaller, blockHash: string): Promise<LogsRead> {
  const [blockAnswer, blockLogAnswer] = await batch([
    { method: 'getblock', params: [blockHash, true] },
    logCall(blockHash),
  ]);
  const block = resultOf<BlockBody>(blockAnswer!);
  // A block's log not there yet fails the read before its transactions' are asked for.
  resultOf<Log>(blockLogAnswer!);
  if (block.tx.length === 0) return { block, lists: listsOf(block, [blockLogAnswer!]) };
  const answers = await batch([...logCalls(block).slice(1), bodyCall(block.index + 1)]);
  const nextAnswer = answers.pop()!;
  const lists = listsOf(block, [blockLogAnswer!, ...answers]);
  // Whatever the node answered for the next block ("unknown block" before it is produced), it is
  // only read ahead: the block itself is read, and its failures classed, when its turn comes.
  const index = block.index + 1;
  return { block, lists, ahead: 'result' in nextAnswer ? { index, body: nextAnswer.result as BlockBody } : { index } };
}

/**
 * Sends `plan`'s requests one after another (read-plan.ts) and reads each block's notifications
 * from their answers, as `notificationsFromLogs` does. A block with a log not answered has its
 * error instead. When the first block's own log is not there yet (it is the newest block), the
 * requests left are not sent: every later block would miss too. Bodies are taken up to the first
 * the node did not answer (a block not produced yet).
 */
export async function notificationsByPlan(batch: BatchCaller, plan: ReadPlan): Promise<PlannedRead> {
  const answers: BatchAnswer[] = [];
  for (const request of plan.requests) {
    if (answers[0] && 'error' in answers[0]) break;
    answers.push(...(await batch(request)));
  }
  let at = 0;
  const blocks = plan.logsOf.map((block) => {
    const logs = answers.slice(at, (at += block.tx.length + 1));
    try {
      // Logs cut short: the first block's log was not there yet, and its error is every block's.
      if (logs.length <= block.tx.length) resultOf(answers[0]!);
      return { block, lists: listsOf(block, logs) };
    } catch (error) {
      return { block, error };
    }
  });
  const bodies: BlockBody[] = [];
  for (const answer of answers.slice(at)) {
    if (!('result' in answer)) break;
    bodies.push(answer.result as BlockBody);
  }
  return { blocks, bodies };
}

/** The block's notifications from its log then its transactions' (`logs`, in that order); a failed one throws. */
function listsOf(block: BlockBody, logs: BatchAnswer[]): BlockNotificationLists {
  const blockHash = block.hash.toLowerCase();
  const blockLog = resultOf<Log>(logs[0]!);
  const ofBlock = (trigger: string) =>
    blockLog.executions
      .filter((execution) => execution.trigger === trigger && execution.vmstate === 'HALT')
      .flatMap((execution) => contained(execution, blockHash));
  const transactions = block.tx.map((transaction) => transaction.hash.toLowerCase());
  return {
    onpersist: ofBlock('OnPersist'),
    application: transactions.flatMap((hash, index) =>
      resultOf<Log>(logs[index + 1]!)
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
