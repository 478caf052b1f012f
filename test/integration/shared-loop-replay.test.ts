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
