import {
  CancellationScope,
  condition,
  defineSignal,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import type { Activities } from '../activities/index.ts';
import type { ScheduledFire } from '../activities/automations.ts';
import { deliveryAttemptTimeout, deliveryRetry } from '../src/shared/delivery-policy.ts';
import { endStatus } from '../src/shared/workflow-attributes.ts';
import { inTurn } from './in-turn.ts';
import { rootMessage } from './root-message.ts';
import { runFunction } from './run-function.ts';
import { startNotifications } from './start-notifications.ts';
import { executionStatus, runStatus, type RunStatus } from '../src/shared/outcomes.ts';
import type { RunActionWorkflow } from '../src/shared/workflow-signatures.ts';
import { approvalDecidedSignal } from '../src/shared/approval-signal.ts';

const retry = { maximumAttempts: 10, initialInterval: '1 second', maximumInterval: '30 seconds' };

/** Local activities: a few rows read and written, without a round trip through the task queue. */
const { finishFunctionRun, decideRun, failRun, noteRunEnd, settleApproval } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry,
});

/**
 * The first step, which for a function action runs the code too: the time workflows/run-function.ts
 * gives an attempt at it, and retries only until the run began (see `beginAndRun`).
 */
const { beginRun } = proxyLocalActivities<Activities>({ startToCloseTimeout: '330 seconds', retry });

/** On worker processes: they read the chain. */
const { prepareContractRun, checkSignerGas } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry,
});

/** Each attempt of a webhook action's POST; a retried attempt is sent with the same delivery id. */
const { deliverRunWebhook } = proxyActivities<Activities>({
  startToCloseTimeout: deliveryAttemptTimeout,
  retry: deliveryRetry,
});

/**
 * Relaying waits for a block, at most until the transaction's validUntilBlock passes (about 100
 * blocks); the retry re-sends the same stored transaction. The activity heartbeats every 5 s on a
 * timer, whatever it waits on (one look at the chain may sit through several 10 s RPC timeouts),
 * so 20 s is four missed beats: a lost worker is noticed within 20 s, not after the slowest look.
 * An outage of the chain does not fail it (it keeps looking), and no number of attempts gives up
 * either: while the transaction may land, only the chain's answer (in a block, or expired) ends
 * the run.
 */
const { relayContractRun } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One run's action, a child of what fired it; the workflow id is the run id. A function action
 * runs the code in this same workflow (its execution's record names the automation), so a fire
 * reaches the code through one workflow beyond the trigger's own; one that sends then sends the
 * calls its function decided as a contract action's. How it ended is also set on
 * the workflow (`NeoflowStatus`), where an operator filters for what to retry.
 */
/** A key approved or rejected the run (src/automations/approvals/): the rows say which. */
const approvalDecided = defineSignal(approvalDecidedSignal);

/** Histories that waited for approvals carry this marker (a run of before never waits). */
const approvalsWait = 'approvals-before-signing';

interface RunState {
  notify: boolean;
  holdsTransaction: boolean;
  /** A decision was signalled since the workflow last read the rows. */
  decided: boolean;
}

export const runAction: RunActionWorkflow = async (runId) => (await actOnRun(runId))!;

/**
 * The run `runId` from its first step to its end. `fire`: a schedule's, which the first step records
 * as this run (workflows/scheduled-run.ts); null when it recorded none.
 */
export async function actOnRun(runId: string, fire?: ScheduledFire): Promise<RunStatus | null> {
  const run: RunState = { notify: false, holdsTransaction: false, decided: false };
  setHandler(approvalDecided, () => void (run.decided = true));
  const status = await act(runId, run, fire);
  if (status === null || status === runStatus.running) return status;
  upsertSearchAttributes([endStatus(status)]);
  if (run.notify) await tell(runId);
  return status;
}

async function act(runId: string, run: RunState, fire?: ScheduledFire): Promise<RunStatus | null> {
  try {
    const plan = await (fire ? beginRun(runId, fire) : beginRun(runId));
    run.notify = plan.notify;
    if (plan.kind === 'unrecorded') return null;
    if (plan.kind === 'ended') return plan.status;
    if (plan.kind === 'function') {
      if (!labelled(plan.labels)) upsertSearchAttributes(plan.labels);
      // Ended in the first step, as nearly every run does. A first step that only began the run
      // (one recorded before it ran the code too, or whose attempt failed) leaves the rest here.
      if (plan.status !== undefined) return plan.status;
      const outcome = await runFunction(plan.executionId, plan.attempt);
      if (!plan.sends || outcome.status !== executionStatus.completed) return await finishFunctionRun(runId, outcome);
      // Its result decides: nothing, or calls sent below exactly as a contract action's.
      const decided = await decideRun(runId);
      if (decided !== 'send') return decided;
    }
    // Each waits for its account's turn on a worker (workflows/in-turn.ts).
    if (plan.kind === 'webhook') return await inTurn((attemptsMade) => deliverRunWebhook(runId, attemptsMade));
    const prepared = await prepareApproved(runId, run);
    if (prepared !== 'sent') return prepared;
    run.holdsTransaction = true;
    return await inTurn(() => relayContractRun(runId));
  } catch (error) {
    // What was raised is internal text (an address, a query): the operator's log has it, the
    // tenant's record a fixed message.
    log.warn('run action did not finish', { runId, error: rootMessage(error) });
    // A signed transaction may land yet: cancelled or not, the run stays running, and the recovery
    // sweep starts its action again (it relays the same transaction until the chain answers).
    if (run.holdsTransaction) {
      if (isCancellation(error)) throw error;
      return runStatus.running;
    }
    // Cancelled too (its function deleted, or an operator): the run still ends, as a failure.
    const message = isCancellation(error) ? 'The run was cancelled.' : 'The action could not be run to its end.';
    const status = await CancellationScope.nonCancellable(() => failRun(runId, message));
    if (isCancellation(error)) throw error;
    return status;
  }
}

/**
 * Prepares the run's transaction; one whose action asks for approvals first waits for them, with
 * its calls and fees known and nothing signed: on a signal (a key decided) or its deadline, the
 * rows say what follows, and approved, it is prepared again (re-tested, signed with a fresh
 * validUntilBlock). The wait is a signal and a timer: it holds no worker, and outlives any.
 */
async function prepareApproved(runId: string, run: RunState): Promise<RunStatus | 'sent'> {
  for (;;) {
    const prepared = await inTurn(() => prepareContractRun(runId));
    if (typeof prepared !== 'object') return prepared;
    // Unreached by a history of before approvals; left to the sweep, which starts the run again.
    if (!patched(approvalsWait)) return runStatus.running;
    const outcome = await awaitApproval(runId, run, prepared);
    if (outcome !== 'approved') return outcome;
  }
}

/** What a prepare answers for a run that waits for approvals. */
type AwaitingApproval = Extract<Awaited<ReturnType<Activities['prepareContractRun']>>, object>;

async function awaitApproval(runId: string, run: RunState, awaiting: AwaitingApproval) {
  await tellApprovers(runId, awaiting.notifications);
  for (let { waitMs } = awaiting; ;) {
    // At least 1 ms: a timeout of 0 would wait with no deadline at all.
    const woke = await condition(() => run.decided, Math.max(1, waitMs));
    run.decided = false;
    const outcome = await settleApproval(runId, !woke);
    if (typeof outcome !== 'object') return outcome;
    waitMs = outcome.waitMs;
  }
}

/** Starts the deliveries of `approval_requested`; one not started now is started by the recovery sweep. */
async function tellApprovers(runId: string, notifications: string[]) {
  try {
    await startNotifications(notifications);
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('approval notifications not started', { runId, error: rootMessage(error) });
  }
}

/**
 * Whether the workflow already carries `labels`: a run recorded with its function is started
 * labelled with it (src/automations/runs/fires.ts), and an upsert would cost a history event and a
 * visibility write for nothing. Read from the workflow's own attributes, so a history that made the
 * upsert (started without the label) replays it.
 */
const labelled = (labels: SearchAttributePair[]) =>
  labels.every(({ key, value }) => workflowInfo().typedSearchAttributes.get(key) === value);

/**
 * Records what the run's end tells (a failure streak reached, a recovery, the signer's gas under a
 * threshold) and starts each notification's delivery. The run has ended either way: a step that
 * keeps failing is logged, and the recovery sweep delivers what was recorded.
 */
async function tell(runId: string) {
  try {
    const { notifications, checkGas } = await noteRunEnd(runId);
    const lowGas = checkGas ? await checkSignerGas(runId) : [];
    await startNotifications([...notifications, ...lowGas]);
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('notifications of the run not recorded', { runId, error: rootMessage(error) });
  }
}
