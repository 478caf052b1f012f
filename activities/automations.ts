import { Context, heartbeat, log } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { AccountSlots } from '../src/functions/account-slots.ts';
import { accountBusyType } from '../src/shared/account-busy.ts';
import { accountOfNotification, accountOfRun } from '../src/automations/runs/account-turns.ts';
import type { Networks } from '../src/chain/nodes/networks.ts';
import type { Config } from '../src/config.ts';
import type { EgressPolicy } from '../src/egress/egress-policy.ts';
import * as steps from '../src/automations/runs/run-steps.ts';
import * as contract from '../src/automations/actions/contract-steps.ts';
import { decideRun } from '../src/automations/actions/decide-steps.ts';
import { settleApproval } from '../src/automations/approvals/approval-steps.ts';
import { followRound } from '../src/automations/blocks/follow-blocks.ts';
import { replayPage } from '../src/automations/replays/replay-steps.ts';
import { accountOfReplay, failReplay } from '../src/automations/replays/replay.sql.ts';
import { NetworkFollows } from '../src/automations/blocks/network-follows.ts';
import { checkPriceSource, type PriceSourceCheckInput } from '../src/automations/price/price-check.ts';
import { recordScheduledRun, type FiredRun } from '../src/automations/runs/fires.ts';
import { inAccountTurns, startRuns } from '../src/automations/runs/start-runs.ts';
import { deliverRunWebhook } from '../src/automations/actions/webhook-steps.ts';
import { deliveryAttempts } from '../src/shared/delivery-policy.ts';
import { checkSignerGas } from '../src/automations/notifications/low-gas.ts';
import { noteRunEnd } from '../src/automations/notifications/run-end.ts';
import { failNotification, sendNotification } from '../src/automations/notifications/send.ts';
import type { ExecutionOutcome } from '../src/shared/outcomes.ts';
import type { MasterKeys } from '../src/crypto/envelope.ts';
import type { Pkcs11Module } from '../src/signers/open-signing-key.ts';

export type { FiredRun, ScheduledFire } from '../src/automations/runs/fires.ts';
export type { ReplayStep } from '../src/automations/replays/replay-steps.ts';

interface AutomationDeps {
  orm: MikroORM;
  /** Starts fired runs' workflows (startRuns), never as a workflow's children. */
  temporal: Client;
  taskQueue: string;
  masterKeys: MasterKeys;
  /** NEOFLOW_PKCS11_MODULE and its PIN: what `pkcs11` signers' keys are opened with. */
  pkcs11?: Pkcs11Module;
  /** Every configured network: a run's steps use its network's nodes, a follower its own. */
  networks: Networks;
  automations: Config['automations'];
  egress: EgressPolicy;
  /** NEOFLOW_ACCOUNT_ACTIVITIES: deliveries, prepares, relays and replay pages of one account this process runs at once. */
  activitiesPerAccount: number;
  /** NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: an account's runs not yet ended past which its replays wait. */
  queuedRunsPerAccount: number;
}

/**
 * This attempt of a delivery activity, counting those made in the account's earlier turns
 * (workflows/in-turn.ts), and whether the delivery may make no other.
 */
const thisAttempt = (attemptsMade: number) => {
  const number = attemptsMade + Context.current().info.attempt;
  return { number, last: number >= deliveryAttempts };
};

/** The account holds its share of this worker's activity slots: the workflow waits and asks again. */
const accountBusy = (attemptsMade: number) =>
  ApplicationFailure.create({
    type: accountBusyType,
    message: "The account's share of this worker's activity slots is taken; waiting for a turn.",
    nonRetryable: true,
    category: ApplicationFailureCategory.BENIGN,
    details: [attemptsMade + Context.current().info.attempt - 1],
  });

/** A delivery worth another attempt: the activity fails, and Temporal retries it with backoff. */
function settled<T>(outcome: T | { retry: string }): T {
  if (typeof outcome === 'object' && outcome !== null && 'retry' in outcome) {
    throw ApplicationFailure.retryable(outcome.retry, 'DeliveryNotAccepted');
  }
  return outcome;
}

/** The automations' activities: thin, each step lives in src/automations and may be repeated. */
export function createAutomationActivities(deps: AutomationDeps) {
  const em = () => deps.orm.em.fork();
  const chain = () => ({ em: em(), networks: deps.networks, masterKeys: deps.masterKeys, pkcs11: deps.pkcs11 });
  // Each network's follow, by the magic its follower is keyed by: one follower's round reads
  // and matches its own network's automations only.
  const follows = new NetworkFollows(deps.networks.pools, deps.automations);
  // Each account's share of the activities that wait on the world; refused at once beyond it, never
  // waiting here, where it would hold the slot it leaves to others.
  const turns = new AccountSlots({
    perAccount: deps.activitiesPerAccount,
    queuedPerAccount: 0,
    queued: 0,
    running: Number.POSITIVE_INFINITY,
  });
  const inTurn = async <T>(accountId: string | undefined, attemptsMade: number, step: () => Promise<T>) => {
    if (accountId === undefined) return step();
    const release = await turns.take(accountId);
    if (!release) throw accountBusy(attemptsMade);
    try {
      return await step();
    } finally {
      release();
    }
  };
  return {
    /**
     * A schedule's fire, recorded once per scheduled time; null once the automation is deleted. A
     * paused schedule does not fire, so a fire recorded after a pause was scheduled before it.
     */
    recordScheduledRun: (automationId: string, scheduledAt: string): Promise<FiredRun | null> =>
      recordScheduledRun(em(), automationId, scheduledAt),

    /**
     * One round of the follower of `network`, which returns the runs it recorded. `toStart`: the
     * runs the round before returned, started here on the runs queue of `actionQueue` (the
     * deployment's by default) while this round reads, so that a round is the follower's only
     * activity and wakes it once (workflows/block-follower.ts). A round retried starts them again:
     * the run id is the workflow id, so a start repeated is the same start. A start Temporal
     * refuses leaves its run to the reconciler, which starts every run recorded and not started:
     * the round goes on.
     */
    async followBlocks(network: string, toStart: FiredRun[] = [], actionQueue?: string): Promise<FiredRun[]> {
      const target = {
        client: deps.temporal,
        taskQueue: actionQueue ?? deps.taskQueue,
        reuse: 'REJECT_DUPLICATE' as const,
      };
      const starting = startRuns(target, inAccountTurns(toStart), () => heartbeat()).catch((error: unknown) => {
        log.warn('runs recorded, their start left to the reconciler', { runs: toStart.length, error: String(error) });
      });
      try {
        return await followRound(
          {
            ...(await follows.of(network)),
            em: em(),
            beat: () => heartbeat(),
            runsPerAccount: deps.automations.runsPerRead,
          },
          network,
        );
      } finally {
        await starting;
      }
    },

    /**
     * Starts fired runs' actions for the loops every account shares (workflows/start-runs.ts), on
     * the runs queue of `taskQueue` or of the deployment's; `again`: the sweep's, which starts again
     * a run whose workflow closed while its row still runs. Heartbeats after each start.
     */
    startRuns: (runs: FiredRun[], taskQueue?: string, again = false) =>
      startRuns(
        {
          client: deps.temporal,
          taskQueue: taskQueue ?? deps.taskQueue,
          reuse: again ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
        },
        runs,
        () => heartbeat(),
      ),

    // A page reads for seconds: in its account's turn, as a delivery, so one account's replays
    // hold at most its share of the activity slots, whatever their number.
    replayPage: async (replayId: string) =>
      inTurn(await accountOfReplay(em(), replayId), 0, () =>
        replayPage(
          {
            em: em(),
            networks: deps.networks,
            beat: () => heartbeat(),
            queuedRunsPerAccount: deps.queuedRunsPerAccount,
            blocksPerSecond: deps.automations.replayBlocksPerSecond,
          },
          replayId,
        ),
      ),
    failReplay: (replayId: string, message: string) => failReplay(em(), replayId, message),

    /**
     * One poll of a price source. With `startRuns` (workflows/price-source-poller.ts), the runs it
     * fired are started here, in the poll's own local activity, and none is returned: the poller
     * is woken by its timer alone. A start refused fails the poll, which is retried under the same
     * poll key: it records nothing again and starts again the runs it recorded.
     */
    checkPriceSource: async (input: PriceSourceCheckInput & { startRuns?: boolean }) => {
      const check = await checkPriceSource(
        {
          em: em(),
          defaults: deps.automations,
          egress: deps.egress,
          masterKeys: deps.masterKeys,
          warn: (automationId, problem) => void log.warn('price not read', { automationId, problem }),
        },
        input,
      );
      if (!input.startRuns || check.kind !== 'checked') return check;
      const target = { client: deps.temporal, taskQueue: deps.taskQueue, reuse: 'REJECT_DUPLICATE' as const };
      await startRuns(target, inAccountTurns(check.runs));
      return { ...check, runs: [] };
    },

    finishFunctionRun: (runId: string, outcome: ExecutionOutcome) => steps.finishFunctionRun(em(), runId, outcome),
    decideRun: (runId: string) => decideRun({ em: em(), masterKeys: deps.masterKeys }, runId),
    // The attempt tells the step when a signer's backend not reachable now has had its last (signing-steps.ts).
    prepareContractRun: async (runId: string) =>
      inTurn(await accountOfRun(em(), runId), 0, () =>
        contract.prepareContractRun(chain(), runId, Context.current().info.attempt),
      ),
    relayContractRun: (runId: string) => {
      const endsAt = Date.now() + deps.automations.relayAttemptMs;
      return beatingSteadily(async () =>
        inTurn(await accountOfRun(em(), runId), 0, () =>
          contract.relayContractRun(chain(), runId, () => endIfPast(endsAt)),
        ),
      );
    },
    failRun: (runId: string, message: string) => steps.failRun(em(), runId, message),
    settleApproval: (runId: string, timedOut: boolean) => settleApproval(em(), runId, timedOut),

    deliverRunWebhook: async (runId: string, attemptsMade = 0) =>
      inTurn(await accountOfRun(em(), runId), attemptsMade, async () =>
        settled(await deliverRunWebhook({ ...deps, em: em() }, runId, thisAttempt(attemptsMade).last)),
      ),

    noteRunEnd: (runId: string) => noteRunEnd(em(), runId),
    checkSignerGas: (runId: string) => checkSignerGas({ em: em(), networks: deps.networks }, runId),
    sendNotification: async (notificationId: string, attemptsMade = 0) =>
      inTurn(await accountOfNotification(em(), notificationId), attemptsMade, async () =>
        settled(
          await sendNotification(
            { ...deps, em: em(), telegramApiUrl: deps.automations.telegramApiUrl },
            notificationId,
            thisAttempt(attemptsMade),
          ),
        ),
      ),
    failNotification: (notificationId: string, reason: string) => failNotification(em(), notificationId, reason),
  };
}

/** Between a relay's heartbeats: four fit in the heartbeat timeout workflows/run-action.ts gives it. */
const relayBeatMs = 5_000;

/**
 * Runs `step` heartbeating every relayBeatMs from its start to its end, whatever it is waiting on:
 * one look at the chain may sit through several 10 s RPC timeouts, and a beat only per look would
 * need a heartbeat timeout long enough for the slowest, so a lost worker would be noticed that late.
 * The beats carry no details: a relay's progress is on its run's row (`tx_relayed`), not here.
 */
async function beatingSteadily<T>(step: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), relayBeatMs);
  try {
    return await step();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Past its window a relay attempt ends with a retryable failure, and Temporal retries the relay
 * without limit (the run keeps its transaction and keeps looking): an attempt never runs into the
 * activity's timeout, and however long the chain is away, no number of attempts ends the run.
 */
function endIfPast(endsAt: number) {
  if (Date.now() > endsAt) {
    throw ApplicationFailure.retryable(
      'The relay attempt ended; the next attempt goes on looking.',
      'RelayAttemptEnded',
    );
  }
}
