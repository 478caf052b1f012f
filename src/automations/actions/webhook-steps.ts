import type { EntityManager } from '@mikro-orm/postgresql';
import type { EgressPolicy } from '../../egress/egress-policy.ts';
import { revealCredentials } from '../credentials/credential-store.ts';
import { mapTarget } from '../credentials/credentials.ts';
import { postJson } from '../notifications/post-json.ts';
import { signedPost } from '../notifications/signature.ts';
import type { MasterKeys } from '../../crypto/envelope.ts';
import { revealSecrets } from '../../secrets/secret-store.ts';
import { AutomationRun } from '../model/run.entity.ts';
import { endRun } from '../runs/fires.ts';
import { runErrorName, runStatus, type RunStatus } from '../../shared/outcomes.ts';

interface WebhookDeps {
  em: EntityManager;
  masterKeys: MasterKeys;
  egress: EgressPolicy;
}

/** Another attempt is due (a network error, 429 or 5xx); nothing was recorded. */
interface RetryDelivery {
  retry: string;
}

/**
 * One attempt at a webhook action's POST: `{id, automationId, trigger, firedAt}`, with
 * `Neoflow-Delivery: <run id>` on every attempt (receivers deduplicate on it) and a fresh
 * signature. A 2xx ends the run as a success; a final answer (or the last attempt) as a failure
 * with the status and the first KiB of the answer. A run that already ended sends nothing again.
 */
export async function deliverRunWebhook(
  deps: WebhookDeps,
  runId: string,
  lastAttempt: boolean,
): Promise<RunStatus | RetryDelivery> {
  const run = await deps.em.findOne(AutomationRun, { id: runId }, { populate: ['automation'] });
  // A run deleted with its automation answers a failure: nothing left to do or to record.
  if (!run) return runStatus.failure;
  if (run.status !== runStatus.running) return run.status;
  const action = run.automation.action;
  if (action.type !== 'webhook') return end(deps.em, run, 'The action was changed before the webhook was sent.');
  const [secret] = await revealSecrets(deps.em, deps.masterKeys, run.accountId, [action.signingSecret]);
  if (!secret) return end(deps.em, run, `The signing secret ${action.signingSecret} no longer exists.`);
  const target = await revealCredentials(deps.em, deps.masterKeys, run.automation.id, (r) =>
    mapTarget(action, 'action', r),
  );
  const body = JSON.stringify({
    id: run.id,
    automationId: run.automation.id,
    trigger: run.trigger,
    firedAt: run.startedAt.toISOString(),
  });
  const delivery = await postJson(deps.egress, signedPost(target, run.id, body, secret.value));
  if (delivery.kind === 'delivered') {
    endRun(run, runStatus.success);
    await deps.em.flush();
    return run.status;
  }
  if (delivery.kind === 'retry' && !lastAttempt) return { retry: delivery.detail };
  const after = delivery.kind === 'retry' ? ' (the last attempt)' : '';
  return end(deps.em, run, `The webhook was not delivered: ${delivery.detail}${after}.`, delivery);
}

async function end(
  em: EntityManager,
  run: AutomationRun,
  message: string,
  answer: { status: number | null; body: string | null } = { status: null, body: null },
): Promise<RunStatus> {
  endRun(run, runStatus.failure, {
    name: runErrorName.WebhookFailed,
    message,
    ...(answer.status === null ? {} : { status: answer.status }),
    ...(answer.body === null ? {} : { body: answer.body }),
  });
  await em.flush();
  return run.status;
}
