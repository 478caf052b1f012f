/**
 * What each workflow the API side starts takes and returns. Starters name a workflow by its type
 * (`workflow.start<RunActionWorkflow>('runAction', …)`) and never import `workflows/`; each
 * workflow is declared with its signature, so the two cannot drift apart unnoticed by the
 * typecheck. Types only, over the vocabulary of outcomes.
 */
import type { SearchAttributePair } from '@temporalio/common';
import type { EndedReplayStatus, ExecutionOutcome, RunStatus } from './outcomes.ts';

/** One execution of a function: its id in, how it ended out. */
export type ExecuteFunctionWorkflow = (executionId: string) => Promise<ExecutionOutcome>;

/** One run's action: the run's id in, its status out (`running` while a transaction may land). */
export type RunActionWorkflow = (runId: string) => Promise<RunStatus>;

/** One fire of a schedule trigger, as schedules written before issue 50 start it: the automation's id in. */
export type ScheduledFireWorkflow = (automationId: string) => Promise<void>;

/**
 * One fire of a schedule trigger and its run (the workflow id is the run's id): the automation's id
 * in, the run's status out; null when the fire recorded no run.
 */
export type ScheduledRunWorkflow = (automationId: string) => Promise<RunStatus | null>;

/**
 * The follower of one Neo network's blocks; `actionQueue`: where the actions it starts run;
 * `carried`: the runs its run before recorded last, which it starts (given by continue-as-new).
 */
export type BlockFollowerWorkflow = (
  network: string,
  actionQueue?: string,
  carried?: { runId: string; labels: SearchAttributePair[] }[],
) => Promise<void>;

/** The poller of one price source, by its key. */
export type PriceSourcePollerWorkflow = (source: string) => Promise<void>;

/** One notification's delivery: its id in, its status out. */
export type DeliverNotificationWorkflow = (notificationId: string) => Promise<string>;

/** One replay of a block range: its id in, how it ended out. */
export type ReplayBlocksWorkflow = (replayId: string) => Promise<EndedReplayStatus>;

/** The reconciler's loop, a pass every `intervalMs`: it never ends (it continues as new). */
export type RecoveryLoopWorkflow = (intervalMs: number) => Promise<never>;

/** A round trip through a worker: the id of the worker that answered. */
export type PingWorkflow = () => Promise<{ workerId: string }>;

/** Which remote key a new signer names (issue 46): the reference its row will hold. */
export type ProbeSignerInput =
  | { type: 'aws-kms'; backend: { keyId: string; region?: string } }
  | { type: 'pkcs11'; backend: { tokenLabel?: string; slotLabel?: string; keyLabel: string } };

/**
 * What the worker found of it: the key's compressed public key once it signed a test digest that
 * verifies; `refused`, the request's field at fault; `unavailable`, the backend not reachable now.
 */
export type ProbeSignerResult =
  | { outcome: 'key'; publicKey: string }
  | { outcome: 'refused'; field: string; message: string }
  | { outcome: 'unavailable'; message: string };

/** The probe of a new aws-kms or pkcs11 signer's key, on a worker (id `signer-probe-<signerId>`). */
export type ProbeSignerWorkflow = (input: ProbeSignerInput) => Promise<ProbeSignerResult>;
