import { replaysRecordedHistories } from '../support/recorded-histories.ts';

/**
 * Histories `scheduledFire` recorded on the code before issue 50 (3fa7cdf), when a schedule's fire
 * was a workflow of its own that recorded the run and started `runAction` as a child: a fire that
 * recorded its run and started it, and one that recorded none (its automation gone). Schedules now
 * start `scheduledRun`, the run's own workflow; fires in flight when a deployment changes (and those
 * of a schedule the reconciler has not converted yet) replay and end on today's code.
 */
replaysRecordedHistories('scheduledFire histories recorded before a fire was its run`s workflow', [
  'scheduled-fire-started',
  'scheduled-fire-nothing',
]);
