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
 * Histories the block follower and a price poller recorded while they started their runs as
 * children (test/fixtures/histories, recorded with the tests' payload key, their block reads and
 * price checks stood in for): a first round or poll that fired two runs, then rounds or a poll that
 * fired none. A worker of today's code, which starts runs through the client, replays them command
 * for command, as it does a follower or a poller in flight when it is deployed.
 */
const histories = ['block-follower-children', 'price-poller-children'];

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

describe('shared loops` histories recorded while runs were their children', () => {
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
