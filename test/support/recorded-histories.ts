import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { dataConverter } from '../../src/temporal/codec.ts';
import { prebuiltWorkflowBundle } from '../../worker/bundle.ts';
import { testPayloadKey } from './temporal.ts';

const load = (name: string) =>
  proto.temporal.api.history.v1.History.fromObject(
    JSON.parse(readFileSync(new URL(`../fixtures/histories/${name}.json`, import.meta.url), 'utf8')) as object,
  );

/**
 * Replays each history of test/fixtures/histories named in `histories` (recorded with the tests'
 * payload key) on a worker of today's code: each must replay without a nondeterminism error.
 */
export function replaysRecordedHistories(title: string, histories: string[]) {
  let cache: string;
  let codePath: string;
  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'neoflow-replay-'));
    codePath = await prebuiltWorkflowBundle(cache);
  }, 120_000);
  afterAll(async () => {
    await rm(cache, { recursive: true, force: true });
  });

  describe(title, () => {
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
}
