import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { dataConverter } from '../../src/temporal/codec.ts';
import { prebuiltWorkflowBundle } from '../../worker/bundle.ts';
import { testPayloadKey } from '../support/temporal.ts';

/**
 * Histories `runAction` recorded before a function run was labelled at its start and made in one
 * local activity (test/fixtures/histories, written by the tests' API with the tests' payload key):
 * a manual function run (beginRun, runExecution and finishFunctionRun markers, two upserts) and a
 * contract run (beginRun, then activities). A worker of today's code replays them command for
 * command, as it does a workflow in flight when it is deployed.
 */
const histories = ['run-action-function', 'run-action-contract'];

let cache: string;
let codePath: string;
beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'neoflow-replay-'));
  codePath = await prebuiltWorkflowBundle(cache);
}, 120_000);
afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

const load = (name: string) =>
  proto.temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(new URL(`../fixtures/histories/${name}.json`, import.meta.url), 'utf8')) as object,
  );

describe('runAction histories recorded by earlier code', () => {
  for (const name of histories) {
    it(`replays ${name} without a nondeterminism error`, async () => {
      await Worker.runReplayHistory(
        { workflowBundle: { codePath }, dataConverter: dataConverter(testPayloadKey) },
        load(name),
        `replay-${name}`,
      );
    });
  }
});
