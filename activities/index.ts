import { hostname } from 'node:os';
import { Context, log } from '@temporalio/activity';
import { beginAndRun } from '../src/automations/runs/run-steps.ts';
import type { ScheduledFire } from '../src/automations/runs/fires.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../src/config.ts';
import type { EgressPolicy } from '../src/egress/egress-policy.ts';
import type { Networks } from '../src/chain/nodes/networks.ts';
import { AccountSlots } from '../src/functions/account-slots.ts';
import type { LocalRuns } from '../src/functions/local-runs.ts';
import { claimRunTurn, failExecution, runExecution } from '../src/functions/run-execution.ts';
import { RunTurns } from '../src/functions/run-turns.ts';
import { SpareIsolates } from '../src/sandbox/spare-isolates.ts';
import type { MasterKeys } from '../src/crypto/envelope.ts';
import type { ReceiptSigner } from '../src/functions/execution-receipt.ts';
import { createAutomationActivities } from './automations.ts';
import { probeRemoteKey } from '../src/signers/probe-key.ts';
import { openRemoteKey, type Pkcs11Module } from '../src/signers/open-signing-key.ts';
import type { ProbeSignerInput } from '../src/shared/workflow-signatures.ts';

/** What activities need from the process that runs them. */
export interface ActivityDeps {
  workerId: string;
  orm: MikroORM;
  /**
   * Only the reconciler's activities (reconciler.ts) use it: they ask Temporal where each
   * record's workflow stands and write schedules, the one worker-side client (docs/architecture.md).
   */
  temporal: Client;
  taskQueue: string;
  automations: Config['automations'];
  recovery: Config['recovery'];
  egress: EgressPolicy;
  masterKeys: MasterKeys;
  /** NEOFLOW_PKCS11_MODULE and its PIN: what `pkcs11` signers' keys are opened with. */
  pkcs11?: Pkcs11Module;
  /** Every configured network (NEOFLOW_NETWORKS): what a run or a follower reads and sends on is its network's. */
  networks: Networks;
  memoryLimitMb: number;
  /** NEOFLOW_ACCOUNT_ACTIVITIES: deliveries, prepares and relays of one account this process runs at once. */
  activitiesPerAccount: number;
  /** NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: an account's runs not yet ended past which its replays wait. */
  queuedRunsPerAccount: number;
  /** NEOFLOW_SANDBOX_SERVICE_CALLS: calls to `context.services` one run may make. */
  serviceCallsPerRun: number;
  /** NEOFLOW_ACCOUNT_CONCURRENCY: runs of one account this process runs at once, if bounded apart from its share. */
  runsPerAccount?: number;
  /** NEOFLOW_WORKER_MAX_WORKFLOW_TASKS: how many runs the worker holds at once (a workflow task and a local activity each). */
  runSlots: number;
  /** NEOFLOW_WORKER_MAX_RUNS: how many of those run their code at once, all accounts together. */
  maxRuns: number;
  /** The API process's worker only: the runs its API starts eagerly, handed over in process. */
  localRuns?: LocalRuns;
  /** What signs each execution's receipt (NEOFLOW_RECEIPT_KEY); none: executions end unsigned. */
  receipts?: ReceiptSigner;
}

export type { RunAttempt } from '../src/functions/execution-outcome.ts';
export type { RunTurn } from '../src/functions/run-execution.ts';

/**
 * How long a deferred run waits in the process for its account's share before its workflow waits
 * on a timer. Below the SDK's workflow-task heartbeat (80% of the 10 s task timeout): a longer wait
 * ends the task, and the claimed slot waits for the next one. Under a backlog of workflow tasks
 * that next task came after turnHeldMs, the claim was given back unused, and an account whose runs
 * all waited this way ran nothing at all (seen in the 60-minute load run on a loaded machine).
 */
const turnWaitMs = 5_000;
/** A claimed slot unused this long (its workflow task moved elsewhere) is given back. */
const turnHeldMs = 15_000;

/**
 * How long a slot is kept for an account whose run was refused for want of one, from accounts that
 * run more: long enough for its workflow's next task (claimRunTurn) on a loaded machine.
 */
const refusedHoldMs = 3_000;

/** Prepared between runs: enough for a run in progress and the next, few enough to cost little memory. */
const spareIsolates = 2;

export const defaultWorkerId = () => `${hostname()}:${process.pid}`;

/** The worker's activities, closed over their dependencies (one factory, easy to test). */
export function createActivities(deps: ActivityDeps) {
  // Every run slot but one is any account's while no other waits (the last is kept for an account
  // running none, which so starts at once); a slot freed while accounts wait goes to the one running
  // the fewest. Half the worker's workflow slots, all accounts together, may wait
  // here for a run slot (a burst hands over in process, with no workflow timer), one account at most
  // half of those: the other half stays free for the other accounts. Waiting costs a promise, not CPU.
  const waiting = Math.floor(deps.runSlots / 2);
  const slots = new AccountSlots({
    perAccount: deps.runsPerAccount,
    queuedPerAccount: Math.ceil(waiting / 2),
    queued: waiting,
    running: deps.maxRuns,
    keptForNewcomers: 1,
    holdMs: refusedHoldMs,
  });
  const turns = new RunTurns(turnHeldMs);
  const isolates = new SpareIsolates(deps.memoryLimitMb, spareIsolates);
  return {
    ...createAutomationActivities(deps),

    /** Opens a new remote signer's key and has it sign a test digest (workflows/probe-signer.ts). */
    probeSignerKey: (input: ProbeSignerInput) => probeRemoteKey(input, (probed) => openRemoteKey(probed, deps.pkcs11)),

    /** Proves a worker is polling and can run activities; `neoflow up` calls it once at start. */
    async ping(): Promise<{ workerId: string }> {
      return { workerId: deps.workerId };
    },

    /**
     * A run's first step (a local activity): begins it and, for a function action, runs its code in
     * the sandbox and ends it (src/automations/runs/run-steps.ts).
     */
    async beginRun(runId: string, fire?: ScheduledFire) {
      const signal = Context.current().cancellationSignal;
      const run = (executionId: string) =>
        runExecution({ ...deps, em: deps.orm.em.fork(), signal, slots, turns, isolates }, executionId);
      const warn = (step: string, error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        log.warn('run step left to its workflow', { runId, step, error: message });
      };
      // A schedule's fire is recorded by this step, unless later than the schedule's catchup window.
      const toRecord = fire && { ...fire, lateAfterMs: deps.automations.catchupWindowMs };
      const step = await beginAndRun(() => deps.orm.em.fork(), runId, run, warn, toRecord);
      if (step.kind === 'unrecorded' && step.late) log.warn('schedule fire too late to record, dropped', { runId });
      return step;
    },

    /** Runs one function execution in the sandbox and stores its outcome (a local activity). */
    async runExecution(executionId: string) {
      const signal = Context.current().cancellationSignal;
      return runExecution({ ...deps, em: deps.orm.em.fork(), signal, slots, turns, isolates }, executionId);
    },

    /** A deferred run's wait for its account's share, before the attempt that runs it (a local activity). */
    async claimRunTurn(executionId: string) {
      const signal = Context.current().cancellationSignal;
      const runDeps = { ...deps, em: deps.orm.em.fork(), signal, slots, turns, isolates };
      return claimRunTurn(runDeps, executionId, turnWaitMs);
    },

    /** An execution's last word when every attempt failed: it ends failed, signed (a local activity). */
    failExecution: (executionId: string, message: string) =>
      failExecution({ ...deps, em: deps.orm.em.fork() }, executionId, message),
  };
}

export type Activities = ReturnType<typeof createActivities>;
