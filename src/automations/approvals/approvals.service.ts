import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.ts';
import { leaveToSweepIfDown } from '../../temporal/leave-to-sweep.ts';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../log.ts';
import { runNotFound } from '../runs/fires.ts';
import { runStatus } from '../../shared/outcomes.ts';
import { approvalCount, insertDecision, lockDecisionTarget, moveRequest, type Decision } from './approval.sql.ts';
import { signalDecision } from './approvals.control.ts';
import { audit } from '../../audit/audit.ts';
import type { Actor } from '../../audit/actor.ts';
import { valuesSummary } from '../../audit/summary.ts';

const ownChange = () =>
  new AppError('forbidden', 'The key that created or last changed this automation cannot approve or reject its runs.');

const notPending = (why: string) =>
  new AppError('approval_not_pending', `This run is not waiting for approvals: ${why}.`);

/**
 * Records `keyId`'s decision on the run, in one transaction over the run's locked row: a key that
 * created or last changed the automation is refused (403), and so is a run that waits for no
 * approval (409 `APPROVAL_NOT_PENDING`) or a key that decided on it before (409
 * `ALREADY_DECIDED`). A rejection, or the approval that makes the count, decides the request.
 * Then, the lock released, the run's workflow is signalled; a signal lost to a crash or to
 * Temporal being down is sent again by the reconciler (src/recovery/sweep-runs.ts).
 */
export async function decideRun(
  em: EntityManager,
  control: { client: Client; log: Pick<Logger, 'warn'> },
  target: { automationId: string; runId: string },
  actor: Actor & { keyId: string },
  decision: Decision,
): Promise<void> {
  const { automationId, runId } = target;
  const { keyId } = actor;
  await em.transactional(async (tx) => {
    const run = await lockDecisionTarget(tx, automationId, runId);
    if (!run) throw runNotFound();
    if (keyId === run.created_by_key_id || keyId === run.changed_by_key_id) throw ownChange();
    const request = run.approval;
    if (run.status !== runStatus.running || !request) throw notPending('it never asked for one, or it ended');
    if (request.status !== 'pending') throw notPending(`it was ${request.status} already`);
    if (new Date(request.deadline).getTime() <= Date.now()) throw notPending(`its deadline ${request.deadline} passed`);
    if (!(await insertDecision(tx, runId, keyId, decision))) {
      throw new AppError('already_decided', 'This key already approved or rejected this run.');
    }
    if (decision === 'reject') await moveRequest(tx, runId, 'rejected');
    else if ((await approvalCount(tx, runId)) >= request.required) await moveRequest(tx, runId, 'approved');
    const action = decision === 'approve' ? 'run.approve' : 'run.reject';
    audit(tx, actor, { action, resource: { type: 'run', id: runId }, summary: valuesSummary({ automationId }) });
  });
  await leaveToSweepIfDown(control, () => signalDecision(control.client, runId));
}
