import type { EntityManager } from '@mikro-orm/postgresql';
import type { RunError } from '../model/run.entity.ts';
import { countRunEnd } from '../runs/fires.ts';
import { endSentRow, endSkippedRow, failUncalledRow, failUnsentRow, type InBlock } from '../runs/run.sql.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

/**
 * A contract run's ends (the statements in run.sql.ts), each conditional on what the row holds,
 * so that an attempt of a step that is late (a retried activity whose first attempt still runs)
 * can never undo what another stored; each end counted once, by the attempt that wrote it.
 */

/**
 * Fails a run that holds no transaction (nothing was signed: no signer, or a test run that
 * faulted, with the VM's state and the GAS it used); a run that holds one keeps running.
 */
export async function failUnsent(
  em: EntityManager,
  runId: string,
  error: RunError,
  test: { vmState: 'FAULT'; gasConsumed: string } | null = null,
) {
  const ended = await failUnsentRow(em, runId, error, test);
  if (ended) countRunEnd(ended.trigger_type, runStatus.failure);
}

/**
 * Fails a run whose calls could not be made (a template the trigger cannot fill), unless calls
 * were stored meanwhile: a run without calls has signed nothing.
 */
export async function failUncalled(em: EntityManager, runId: string, error: RunError) {
  const ended = await failUncalledRow(em, runId, error);
  if (ended) countRunEnd(ended.trigger_type, runStatus.failure);
}

/**
 * Ends a run whose transaction was sent, with what the chain says of it (`inBlock`, when it is in
 * one); a run that ended already keeps its end.
 */
export async function endSent(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, typeof runStatus.running>,
  error: RunError | null,
  inBlock: InBlock | null,
) {
  const ended = await endSentRow(em, runId, status, error, inBlock);
  if (ended) countRunEnd(ended.trigger_type, status);
}

/**
 * Ends a run whose function decided to send nothing, with its reason, unless the run holds calls
 * or a transaction (decided by another attempt) or has ended.
 */
export async function endSkipped(em: EntityManager, runId: string, reason: string) {
  const ended = await endSkippedRow(em, runId, reason);
  if (ended) countRunEnd(ended.trigger_type, runStatus.success);
}
