import { replaysRecordedHistories } from '../support/recorded-histories.ts';

/**
 * Histories the block follower and a price poller recorded while they started their runs as
 * children (test/fixtures/histories, recorded with the tests' payload key, their block reads and
 * price checks stood in for): a first round or poll that fired two runs, then rounds or a poll that
 * fired none. A worker of today's code, which starts runs through the client, replays them command
 * for command, as it does a follower or a poller in flight when it is deployed.
 */
replaysRecordedHistories('shared loops` histories recorded while runs were their children', [
  'block-follower-children',
  'price-poller-children',
]);

/**
 * Histories the follower and a price poller recorded on the code before issue 50 (3fa7cdf), which
 * started runs through start activities of their own (RunStarter): the follower's first round fired
 * two runs, started by a `startRuns` activity beside the next round; the poller's first poll fired
 * two, then it polled once more and ended. Today's follower starts a round's runs in the next
 * round, today's poller in its poll: each replays the code before, as one in flight at deploy does.
 */
replaysRecordedHistories('shared loops` histories recorded while start activities started their runs', [
  'block-follower-start-activities',
  'price-poller-start-activities',
]);
