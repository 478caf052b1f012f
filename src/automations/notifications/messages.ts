import type { Automation } from '../model/automation.entity.ts';
import type { AutomationRun } from '../model/run.entity.ts';
import type { NotificationMessage } from './notification.entity.ts';
import type { NotifyEvent } from '../model/notify.schemas.ts';
import { runStatus } from '../../shared/outcomes.ts';

/** What happened, beyond the automation and the run: a low balance, or why it was stopped. */
export interface Cause {
  event: NotifyEvent;
  run: AutomationRun | null;
  gas?: { signer: string; address: string; balance: string; below: string };
  reason?: string;
  /** failure: how many runs failed in a row. */
  failures?: number;
  /** approval_requested: what the run waits for. */
  approval?: { required: number; fee: string; deadline: string };
}

/** An error message quoted in a line for people: long ones are cut. */
const quoted = (text: string) => (text.length > 500 ? `${text.slice(0, 500)}…` : text);

/**
 * What a notification says, written once when its cause happens. Ids, names, statuses and the
 * run's error (the sandbox already masked granted secrets in it); never a secret or a link to one.
 */
export function notificationMessage(automation: Pick<Automation, 'id' | 'name'>, cause: Cause): NotificationMessage {
  const { run } = cause;
  const message: NotificationMessage = {
    event: cause.event,
    automation: { id: automation.id, name: automation.name },
    run: run && {
      id: run.id,
      status: run.status,
      error: run.error ? { name: run.error.name, message: run.error.message } : null,
      txHash: run.txHash ?? null,
      vmState: run.vmState ?? null,
    },
    ...(cause.gas ? { gas: cause.gas } : {}),
    ...(cause.reason ? { reason: cause.reason } : {}),
    ...(cause.approval ? { approval: cause.approval } : {}),
    occurredAt: new Date().toISOString(),
    text: '',
  };
  message.text = `Neoflow: automation "${automation.name}" (${automation.id}) ${summary(message, cause)}`;
  return message;
}

function summary(message: NotificationMessage, cause: Cause): string {
  const run = message.run;
  switch (cause.event) {
    case runStatus.failure: {
      const inRow = (cause.failures ?? 1) > 1 ? ` (${cause.failures} failed runs in a row)` : '';
      const error = run?.error ? `: ${run.error.name}: ${quoted(run.error.message)}` : '';
      const tx = run?.txHash ? ` Transaction ${run.txHash}, VM state ${run.vmState ?? 'unknown'}.` : '';
      return `failed${inRow}. Run ${run?.id ?? '?'}${error}.${tx}`;
    }
    case 'recovery':
      return `recovered: run ${run?.id ?? '?'} succeeded.`;
    case 'error':
      return `was stopped by the service: ${quoted(cause.reason ?? 'unknown reason')}`;
    case 'approval_requested': {
      const { required, fee, deadline } = cause.approval!;
      const keys = required === 1 ? 'one key' : `${required} keys`;
      return `waits for ${keys} to approve run ${run?.id ?? '?'} before it signs: its transaction costs ${fee} GAS. It ends ApprovalExpired at ${deadline} unless approved (POST /v1/automations/${message.automation.id}/runs/${run?.id ?? '?'}/approve).`;
    }
    case 'low_gas':
      return `cannot pay for long: its signer ${cause.gas?.signer} (${cause.gas?.address}) holds ${cause.gas?.balance} GAS, less than ${cause.gas?.below}.`;
  }
}
