import { bare, route } from '../../api/route-kit.ts';
import type { Actor } from '../../audit/actor.ts';
import { emptyBody } from '../../wire/empty-body.ts';
import type { Resources } from '../../resources.ts';
import type { ErrorCode } from '../../errors.ts';
import { getAutomation } from '../automations.service.ts';
import { runDetails, runDetailsSchema } from '../automation.view.ts';
import { getRun } from '../runs/fires.ts';
import type { TriggerControl } from '../triggers.control.ts';
import { decisionsOf, type Decision } from './approval.sql.ts';
import { decideRun } from './approvals.service.ts';

const errors: ErrorCode[] = ['automation_not_found', 'run_not_found', 'approval_not_pending', 'already_decided'];

const who =
  'Needs `approvals:write`; the key that created or last changed the automation (a pause or a resume aside) is refused with 403, whatever its scopes, and a key decides a run once (409 `ALREADY_DECIDED`). A run that waits for no approval (never asked, ended, decided, or past its deadline) answers 409 `APPROVAL_NOT_PENDING`.';

/**
 * Approving and rejecting a run that waits for approvals before it signs (docs/api.md,
 * "Approvals"): each answers the run as it stands once the decision is recorded, its workflow
 * signalled.
 */
export function approvalRoutes(resources: Resources, control: TriggerControl) {
  const { em } = resources;
  const decide =
    (decision: Decision) =>
    async ({
      actor,
      accountId,
      params,
    }: {
      actor: Actor;
      accountId: string;
      params: Record<'id' | 'runId', string>;
    }) => {
      const automation = await getAutomation(em(), accountId, params.id);
      // Every route of the area is behind a key, so a request's actor always names one.
      const byKey = { ...actor, keyId: actor.keyId! };
      await decideRun(em(), control, { automationId: automation.id, runId: params.runId }, byKey, decision);
      const { run, notifications } = await getRun(em(), automation.id, params.runId);
      return bare(runDetails(run, notifications, await decisionsOf(em(), [run.id])));
    };
  return [
    route({
      method: 'post',
      path: '/:id/runs/:runId/approve',
      errors,
      summary: 'Approve a run',
      description: `Approves a run waiting for approvals before it signs. Once \`approval.required\` keys approved, the run re-tests its calls, signs with a fresh \`validUntilBlock\` and relays. ${who}`,
      tag: 'Automations',
      scope: 'approvals:write',
      body: emptyBody,
      bodyOptional: true,
      responses: { 200: runDetailsSchema },
      handle: decide('approve'),
    }),
    route({
      method: 'post',
      path: '/:id/runs/:runId/reject',
      errors,
      summary: 'Reject a run',
      description: `Rejects a run waiting for approvals: it ends \`failure\` with \`ApprovalRejected\`, nothing signed, its GAS reservation released. ${who}`,
      tag: 'Automations',
      scope: 'approvals:write',
      body: emptyBody,
      bodyOptional: true,
      responses: { 200: runDetailsSchema },
      handle: decide('reject'),
    }),
  ];
}
