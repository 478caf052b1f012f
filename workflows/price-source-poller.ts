import {
  condition,
  continueAsNew,
  defineSignal,
  patched,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { RunStarter } from './start-runs.ts';
import type { PriceSourcePollerWorkflow } from '../src/shared/workflow-signatures.ts';

/**
 * A local activity: a poll is one workflow task (the timer fires, the price is read, the next timer
 * starts) instead of two and an activity task.
 */
const { checkPriceSource } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  // A source that fails is read again at the next poll; a retry storm helps nobody.
  retry: { maximumAttempts: 2, initialInterval: '1 second' },
});

/** An automation joined the source (created, changed or activated): poll now, not at the next timer. */
const wakeSignal = defineSignal('wake');

/**
 * Names the change that made a poll start the runs it fired in its own local activity (then it
 * returns none): a poller is woken by its timer (or a wake) alone, not by start activities'
 * ends. Histories recorded before it replay as they ran (RunStarter).
 */
const runsStartedInPoll = 'price-poll-starts-runs';

/** Polls between continue-as-new: keeps the history short whatever the interval. */
const pollsPerRun = 500;
/** When a check could not run at all (its database unreachable): soon, but not in a tight loop. */
const afterFailureMs = 5_000;

/**
 * The price source of every automation reading it (workflow id `price_<source key>`): one read
 * per poll, at the shortest interval among them, each automation evaluated as its own interval
 * elapses. What each trigger decided lives in PostgreSQL (price_trigger_states), so this holds no
 * automation's state: automations join and leave by their rows, read at every poll. Each fire
 * starts its run's action, labelled with its automation. Ends once no active automation reads
 * the source; a create or an activation starts it again (signal-with-start), as the reconciler does.
 */
export const priceSourcePoller: PriceSourcePollerWorkflow = async (source) => {
  let woken = false;
  setHandler(wakeSignal, () => {
    woken = true;
  });
  const { runId } = workflowInfo();
  // A poller that began on code before the change replays, and goes on, starting runs as it did.
  const startsInPoll = patched(runsStartedInPoll);
  const starter = new RunStarter();
  for (let poll = 0; poll < pollsPerRun; poll++) {
    woken = false;
    const input = { source, pollKey: `price:${runId}:${poll}` };
    const check = await checkPriceSource(startsInPoll ? { ...input, startRuns: true } : input).catch(() => null);
    // An automation that joined while the poll found none is read at once, not left without a poller.
    if (check?.kind === 'idle' && !woken) return starter.drain();
    if (check?.kind === 'checked') await starter.add(check.runs);
    const intervalMs = check?.kind === 'checked' ? check.intervalMs : afterFailureMs;
    await condition(() => woken, intervalMs);
    if (workflowInfo().continueAsNewSuggested) break;
  }
  await starter.drain();
  await continueAsNew<PriceSourcePollerWorkflow>(source);
};
