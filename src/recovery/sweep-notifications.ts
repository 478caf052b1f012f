import { undispatchedPage } from '../automations/notifications/notification.sql.ts';
import { failNotification } from '../automations/notifications/send.ts';
import { rowSweep } from './row-sweep.ts';
import { workflowStanding } from '../shared/outcomes.ts';

/**
 * One page of the notifications recorded whose delivery has not begun once `graceMs` has passed
 * (a crash between recording and starting, or recorded where no workflow can be started: an
 * activity that moved an automation to `error`), each held against its delivery's workflow (id =
 * notification id): never started, it is handed back to be started; closed before its first
 * attempt (terminated), the notification fails; running, it is left to deliver.
 */
export const sweepNotifications = rowSweep(undispatchedPage, async (em, row, state) => {
  if (state.state === workflowStanding.missing) return { start: row.id };
  if (state.state !== workflowStanding.closed) return undefined;
  await failNotification(em, row.id, `The delivery could not run: ${state.reason}.`);
  return 'ended';
});
