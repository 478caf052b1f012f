import { replaysRecordedHistories } from '../support/recorded-histories.ts';

/**
 * Histories `runAction` recorded before a function run was labelled at its start and made in one
 * local activity (test/fixtures/histories, written by the tests' API with the tests' payload key):
 * a manual function run (beginRun, runExecution and finishFunctionRun markers, two upserts) and a
 * contract run (beginRun, then activities). A worker of today's code replays them command for
 * command, as it does a workflow in flight when it is deployed.
 */
replaysRecordedHistories('runAction histories recorded by earlier code', [
  'run-action-function',
  'run-action-contract',
]);
