import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Networks } from '../chain/nodes/networks.ts';
import { storable } from '../db/storable.ts';
import type { EgressPolicy } from '../egress/egress-policy.ts';
import { outputText } from '../sandbox/output.ts';
import type { IsolateSource } from '../sandbox/prepared-isolate.ts';
import { sandboxError } from '../sandbox/errors.ts';
import { runInSandbox } from '../sandbox/sandbox.ts';
import type { SandboxOutcome } from '../sandbox/types.ts';
import { sandboxServices } from './sandbox-services.ts';
import { recordedServices } from './host-calls.ts';
import {
  lostEndReceipt,
  receiptSubject,
  signedReceipt,
  type LostEndDeps,
  type ReceiptSigner,
  type RunFacts,
} from './execution-receipt.ts';
import type { HostCall } from '../receipts/receipt-claims.ts';
import { functionFetch, type HttpRequestRecord } from './function-fetch.ts';
import type { MasterKeys } from '../crypto/envelope.ts';
import { revealSecrets, type RevealedSecret } from '../secrets/secret-store.ts';
import { Execution } from './execution.entity.ts';
import { countEnded } from './execution-metrics.ts';
import { runsInProgress } from '../metrics/metrics.ts';
import type { ExecutionTrigger } from './execution-record.ts';
import type { AccountSlots } from './account-slots.ts';
import type { RunTurns } from './run-turns.ts';
import { deferred, deletedOutcome, outcomeOf, type Deferred, type RunAttempt } from './execution-outcome.ts';
import type { LocalRuns } from './local-runs.ts';
import { sealResult } from './result-seal.ts';
import { timeoutToRun, versionToRun } from './run-version.ts';
import { storeEnd } from './execution.sql.ts';
import { magicOf, nodesOf } from './run-network.ts';
import { RunStorage } from './storage/run-storage.ts';
import { storeEndWithWrites } from './storage/storage-commit.ts';
import { storeReader } from './storage/storage-store.ts';
import { executionErrorName, executionStatus, type ExecutionOutcome } from '../shared/outcomes.ts';

interface RunDeps {
  em: EntityManager;
  masterKeys: MasterKeys;
  /** Every configured network: an automation's run reads its run's, an invoke the default (first). */
  networks: Networks;
  /**
   * What a run's `fetch` may reach (NEOFLOW_EGRESS_ALLOW): the API's process, which runs the
   * invokes it starts eagerly, holds the same policy as a worker's, never one of its own.
   */
  egress: EgressPolicy;
  memoryLimitMb: number;
  serviceCallsPerRun: number;
  /** Where each run takes its (fresh) isolate. */
  isolates: IsolateSource;
  /** Each account's share of this process's runs. */
  slots: AccountSlots;
  /** Slots deferred runs claimed for their next attempt (claimRunTurn). */
  turns: RunTurns;
  /** Aborted when the execution's workflow is cancelled. */
  signal?: AbortSignal;
  /** The API process's: the runs it started, their rows as built and their waiting invokes. */
  localRuns?: LocalRuns;
  /** What signs each execution's receipt as its end is stored; none: executions end unsigned. */
  receipts?: ReceiptSigner;
}

/**
 * Runs a recorded execution once, stores its outcome and hands it to a synchronous invoke waiting
 * in this process. Idempotent: an execution that already ended (a run taken over from a process
 * that died after recording it) is left as it is.
 */
export async function runExecution(deps: RunDeps, executionId: string): Promise<RunAttempt> {
  const execution = await loadExecution(deps, executionId);
  // Gone with its function (or never stored): nothing left to run or to record.
  if (!execution) return deletedOutcome;
  if (execution.status !== executionStatus.running) return outcomeOf(execution);
  // The share bounds what runs the account's code (CPU, memory): storing the end is not counted.
  // Taken at once or not at all: a run never waits for it here, where the wait would count
  // against the time its code has (claimRunTurn waits instead, before this starts).
  const release = deps.turns.take(executionId) ?? deps.slots.tryTake(execution.account.id);
  if (!release) {
    deps.localRuns?.deferred(executionId);
    return deferred;
  }
  let ran: Ran;
  runsInProgress.inc();
  try {
    ran = await runCode(deps, execution);
  } finally {
    runsInProgress.dec();
    release();
  }
  try {
    return await storeOutcome(deps, execution, ran);
  } finally {
    // Once the waiting request has its answer: the next isolate is made off the run's path.
    deps.isolates.replenish();
  }
}

/** What a deferred run's workflow learns when it asks for its turn. */
export type RunTurn = ExecutionOutcome | Deferred | { status: 'claimed'; runLimitMs: number };

/**
 * Waits, up to `waitMs`, in the process's waiting room for a slot of the execution's account, and
 * holds it for the attempt that follows (runExecution, in the same workflow task). Reads only the
 * row's status and what bounds the run (not its params or code). `runLimitMs`: the time that
 * attempt needs at most, the function's timeout and a margin to read its secrets and store its
 * end, so the run's own time starts only once its slot is taken.
 */
export async function claimRunTurn(deps: RunDeps, executionId: string, waitMs: number): Promise<RunTurn> {
  const execution = await deps.em.findOne(
    Execution,
    { id: executionId },
    { fields: ['status', 'duration', 'error', 'account', 'functionVersion', 'function.timeout', 'function.version'] },
  );
  if (!execution) return deletedOutcome;
  if (execution.status !== executionStatus.running) return outcomeOf(execution);
  const signal = AbortSignal.any([AbortSignal.timeout(waitMs), ...(deps.signal ? [deps.signal] : [])]);
  const release = await deps.slots.take(execution.account.id, signal);
  if (!release) return deferred;
  deps.turns.hold(executionId, release);
  return { status: 'claimed', runLimitMs: (await timeoutToRun(deps.em, execution)) * 1000 + runMarginMs };
}

/** A host name is at most 253 characters; an address or a longer name is the code's own. */
const maxHostBytes = 256;

/** Beyond the function's timeout: reading its secrets, making its isolate, storing its end. */
const runMarginMs = 30_000;

/**
 * Stores the run's end; its outcome, the one its workflow returns, is what the statistics count
 * and what a synchronous invoke waiting in this process answers, with the result. What the code
 * produced is made storable (db/storable.ts) before either, so the answer is what a read shows.
 */
async function storeOutcome(deps: RunDeps, execution: Execution, ran: Ran): Promise<ExecutionOutcome> {
  record(execution, ran);
  const ended = ran.outcome;
  let result = ended.status === executionStatus.completed ? storable(ended.result ?? null) : undefined;
  const sealed =
    ended.status === executionStatus.completed ? sealResult(deps.masterKeys, execution.id, result) : undefined;
  const changes = ran.storage.changes();
  const facts = deps.receipts ? await runFacts(ran) : undefined;
  const receipt = () => (facts ? signedReceipt(deps.receipts!, receiptSubject(execution, facts, result)) : undefined);
  if (sealed && changes) {
    const committed = await storeEndWithWrites(
      deps.em,
      deps.masterKeys,
      { executionId: execution.id, functionId: execution.function.id },
      execution,
      sealed,
      changes,
      receipt(),
    );
    if (committed === 'lost') return storedOutcome(deps.em, execution.id);
    if (committed !== 'stored') {
      // The writes were refused (a conflict, a quota): the run fails with that error, nothing written.
      execution.status = executionStatus.failed;
      execution.error = sandboxError(committed.name, committed.message);
      result = undefined;
      if (!(await storeEnd(deps.em, execution.id, execution, undefined, receipt())))
        return storedOutcome(deps.em, execution.id);
    }
  } else if (!(await storeEnd(deps.em, execution.id, execution, sealed, receipt())))
    return storedOutcome(deps.em, execution.id);
  const outcome = outcomeOf(execution);
  countEnded(outcome, execution.trigger as ExecutionTrigger);
  deps.localRuns?.ended({ outcome, execution, result });
  return outcome;
}

interface Ran {
  outcome: SandboxOutcome;
  secrets: RevealedSecret[];
  httpRequests: HttpRequestRecord[];
  /** The run's view of its function's store, with the writes it buffered. */
  storage: RunStorage;
  /** What the run's receipt covers beside its row: the version it ran, its calls, its network. */
  version: RunFacts['version'];
  hostCalls: HostCall[];
  networkMagic: Promise<number>;
}

/** A receipt's network is its run's; 0 when no node of it answered (a contract then refuses it). */
async function runFacts(ran: Ran): Promise<RunFacts> {
  return { networkMagic: await ran.networkMagic, version: ran.version, hostCalls: ran.hostCalls };
}

async function runCode(deps: RunDeps, execution: Execution): Promise<Ran> {
  const fn = await versionToRun(deps.em, execution);
  const secrets = await revealSecrets(deps.em, deps.masterKeys, execution.account.id, fn.secrets);
  const http = functionFetch(deps.egress, fn.allowedHosts);
  // The store is the function's, shared by all its versions.
  const storage = new RunStorage(storeReader(deps.em, deps.masterKeys, execution.function.id));
  const nodes = nodesOf(deps, execution);
  const recorded = recordedServices(sandboxServices(nodes, http));
  // Asked while the code runs (nodes keep it): the end's statement then waits for nothing.
  const networkMagic = deps.receipts ? magicOf(nodes) : Promise.resolve(0);
  const outcome = await runInSandbox(
    {
      code: fn.code,
      typescript: fn.runtime === 'typescript',
      params: execution.params,
      execution: { id: execution.id, startedAt: execution.startedAt.toISOString(), functionId: execution.function.id },
      environment: fn.environment,
      secrets,
      services: recorded.services,
      storage,
      timeoutMs: fn.timeout * 1000,
      memoryLimitMb: deps.memoryLimitMb,
      maxServiceCalls: deps.serviceCallsPerRun,
      signal: deps.signal,
    },
    deps.isolates,
  );
  return {
    outcome,
    secrets,
    httpRequests: http.requests(),
    storage,
    version: { ...fn, version: execution.functionVersion ?? execution.function.version },
    hostCalls: recorded.calls(),
    networkMagic,
  };
}

/** The outcome another process stored first (it ran the same execution), or `deleted`. */
async function storedOutcome(em: EntityManager, executionId: string): Promise<ExecutionOutcome> {
  const stored = await em.fork().findOne(Execution, { id: executionId });
  return stored ? outcomeOf(stored) : deletedOutcome;
}

/**
 * Pauses between reads of a row not stored yet (about 5 s in all). A run started eagerly writes
 * its row while the workflow starts; when the server declines the eager start, the task can reach
 * a worker elsewhere before the row commits. Only a row still missing after these means the run
 * has no record (its function deleted, or its API died before storing it).
 */
const recordPausesMs = [10, 20, 40, 80, 160, 320, 640, 1280, 2500];

/** The row as this process built it when it started the run, else as stored, with its function. */
async function loadExecution({ em, localRuns }: RunDeps, executionId: string) {
  const local = await localRuns?.take(executionId);
  if (local) return em.merge(local);
  const read = () => em.findOne(Execution, { id: executionId }, { populate: ['function'] });
  for (const pauseMs of recordPausesMs) {
    const stored = await read();
    if (stored) return stored;
    await sleep(pauseMs);
  }
  return read();
}

/**
 * The sandbox already masked granted values in the logs and the error; a request's host is the
 * code's too (a URL built from a secret), masked and cut here the same way. The result is sealed.
 */
function record(execution: Execution, ran: Ran) {
  const { outcome, secrets, httpRequests, storage } = ran;
  execution.status = outcome.status;
  execution.storageKeys = storage.keys() ?? null;
  execution.secretsRead = secrets
    .filter((secret) => outcome.secretsRead.includes(secret.name))
    .map(({ name, version }) => ({ name, version }));
  const output = outputText(secrets);
  execution.httpRequests = httpRequests.map((request) => ({
    ...request,
    host: output.text(request.host, maxHostBytes),
  }));
  // A fetch's target is its host: masked as the request's record is.
  ran.hostCalls = ran.hostCalls.map((call) =>
    call.method === 'getBalance' || call.method === 'getBlockCount' || call.method === 'invokeRead'
      ? call
      : { ...call, target: output.text(call.target, maxHostBytes) },
  );
  execution.logs = storable(outcome.logs);
  execution.completedAt = new Date();
  execution.duration = outcome.durationMs;
  if (outcome.status === executionStatus.failed) execution.error = storable(outcome.error);
}

/**
 * The last word when every attempt failed: the execution ends failed, never stays running, and
 * is signed as it ends (lostEndReceipt).
 */
export async function failExecution(
  deps: LostEndDeps & { localRuns?: LocalRuns },
  executionId: string,
  message: string,
): Promise<ExecutionOutcome> {
  const execution = await deps.em.findOne(Execution, { id: executionId }, { populate: ['function'] });
  if (!execution) return deletedOutcome;
  if (execution.status !== executionStatus.running) return outcomeOf(execution);
  execution.status = executionStatus.failed;
  execution.error = { name: executionErrorName.ExecutionLostError, message, stack: '' };
  execution.completedAt = new Date();
  execution.duration = execution.completedAt.getTime() - execution.startedAt.getTime();
  const receipt = await lostEndReceipt(deps, execution, execution);
  if (!(await storeEnd(deps.em, executionId, execution, undefined, receipt)))
    return storedOutcome(deps.em, executionId);
  const outcome = outcomeOf(execution);
  countEnded(outcome, execution.trigger as ExecutionTrigger);
  deps.localRuns?.ended({ outcome, execution, result: undefined });
  return outcome;
}
