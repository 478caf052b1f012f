import { continueAsNew, proxyLocalActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { startAction } from './start-action.ts';

/**
 * A local activity: a poll is one workflow task (the timer fires, the price is read, the next timer
 * starts) instead of two and an activity task.
 */
const { checkPrice } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // A source that fails is read again at the next poll; a retry storm helps nobody.
  retry: { maximumAttempts: 2, initialInterval: '1 second' },
});

/** Polls between continue-as-new: keeps the history short whatever the interval. */
const pollsPerRun = 500;
/** When a check could not run at all (its database unreachable): soon, but not in a tight loop. */
const afterFailureMs = 5_000;

/**
 * The price trigger of one automation (workflow id = automation id). It fires when the
 * condition becomes true and re-arms only once it has been false again, or once the condition
 * itself changed (`armedFor`); it counts the polls in a row that read no usable price, and stops
 * once the check moved the automation to `error`.
 */
export async function pricePoller(
  automationId: string,
  armed = true,
  failures = 0,
  failingSince: string | null = null,
  armedFor: string | null = null,
): Promise<void> {
  const { runId } = workflowInfo();
  for (let poll = 0; poll < pollsPerRun; poll++) {
    const fireKey = `price:${runId}:${poll}`;
    const input = { automationId, armed, fireKey, failures, failingSince, armedFor };
    const check = await checkPrice(input).catch(() => null);
    if (check?.kind === 'stopped') return;
    if (check) ({ armed, failures, failingSince, armedFor } = check);
    if (check?.run) await startAction(check.run);
    await sleep(check?.intervalMs ?? afterFailureMs);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await continueAsNew<typeof pricePoller>(automationId, armed, failures, failingSince, armedFor);
}
