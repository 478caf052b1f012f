import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firedRun, type FiredRun } from '../../src/automations/runs/fires.ts';
import { startRuns } from '../../src/automations/runs/start-runs.ts';
import { dataConverter } from '../../src/temporal/codec.ts';
import type { BlockFollowerWorkflow } from '../../src/shared/workflow-signatures.ts';
import { prebuiltWorkflowBundle } from '../../worker/bundle.ts';
import { until } from '../support/polling.ts';
import { connectTestTemporal, testPayloadKey } from '../support/temporal.ts';

/**
 * Temporal counts a parent's children until each closes, and refuses a start past
 * `limit.numPendingChildExecutions.error`: 2,000 by default, which the tests' dev server keeps. The
 * real follower workflow runs here on a worker of its own, its block reads stood in for (each
 * round a "block"): its first block fires 2,500 runs of one account, whose actions go to a task
 * queue nobody polls, so that every one stays running as a long run would; a later block fires
 * one run of another account. Its starts are the real ones (src/automations/runs/start-runs.ts).
 */
const burst = 2_500;

let cache: string;
let codePath: string;
let temporal: { connection: NativeConnection; client: Client };
/** Where the runs' actions go: nobody polls it. */
const nobodyPolls = `children-actions-${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'neoflow-children-'));
  [codePath, temporal] = await Promise.all([prebuiltWorkflowBundle(cache), connectTestTemporal()]);
}, 180_000);
afterAll(async () => {
  // The parked runs would wait for ever: ended with the test, as an operator would.
  await temporal?.client.workflowService
    .startBatchOperation({
      namespace: 'default',
      jobId: `children-cleanup-${randomBytes(4).toString('hex')}`,
      reason: 'test ended',
      visibilityQuery: `ExecutionStatus = 'Running' AND TaskQueue = '${nobodyPolls}'`,
      terminationOperation: {},
    })
    .catch(() => undefined);
  await temporal?.connection.close();
  await rm(cache, { recursive: true, force: true });
});

describe('the block follower, shared by every account', () => {
  it("keeps reading blocks, and fires another account's watcher, after one account's block fired 2,500 runs still running", async () => {
    const id = randomBytes(4).toString('hex');
    const followerQueue = `children-follower-${id}`;
    const run = (account: string, n: number): FiredRun =>
      firedRun(`run_children_${id}_${account}_${n}`, `acct_${account}_${id}`, `auto_${account}_${id}`, 'blockchain');
    const burner = Array.from({ length: burst }, (_, n) => run('burner', n));
    const other = run('other', 0);
    let rounds = 0;
    const followBlocks = async (): Promise<FiredRun[]> => {
      rounds += 1;
      if (rounds === 1) return burner;
      await sleep(100);
      return rounds === 3 ? [other] : [];
    };
    const worker = await Worker.create({
      connection: temporal.connection,
      namespace: 'default',
      taskQueue: followerQueue,
      dataConverter: dataConverter(testPayloadKey),
      workflowBundle: { codePath },
      activities: {
        followBlocks,
        startRuns: (runs: FiredRun[], taskQueue?: string) =>
          startRuns({ client: temporal.client, taskQueue: taskQueue ?? nobodyPolls, reuse: 'REJECT_DUPLICATE' }, runs),
      },
    });
    const followerId = `children-follower-${id}`;
    const follow = async () => {
      const handle = await temporal.client.workflow.start<BlockFollowerWorkflow>('blockFollower', {
        workflowId: followerId,
        taskQueue: followerQueue,
        args: [`children-${id}`, nobodyPolls],
      });
      const followed = await until(
        async () => rounds,
        (count) => count >= 6,
        90_000,
      );
      const otherRun = await temporal.client.workflow
        .getHandle(other.runId)
        .describe()
        .then((described) => described.status.name)
        .catch(() => 'never started');
      await handle.terminate('test ended');
      return { followed, otherRun };
    };
    const startedAt = Date.now();
    const { followed, otherRun } = await worker.runUntil(follow());
    const running = await temporal.client.workflow
      .getHandle(burner.at(-1)!.runId)
      .describe()
      .then((described) => described.status.name);
    console.log(`follower: ${followed} rounds in ${Date.now() - startedAt} ms after a block of ${burst} runs`);

    expect(running).toBe('RUNNING');
    expect(followed).toBeGreaterThanOrEqual(6);
    expect(otherRun).toBe('RUNNING');
  }, 150_000);
});
