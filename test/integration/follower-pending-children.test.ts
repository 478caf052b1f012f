import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { firedRun, type FiredRun } from '../../src/automations/runs/fires.ts';
import { inAccountTurns, startRuns } from '../../src/automations/runs/start-runs.ts';
import { freePort } from '../../src/net/ports.ts';
import { ensureGoProgram, temporalCli } from '../../src/stack/binaries.ts';
import { startTemporalDev, type TemporalDevServer } from '../../src/stack/temporal-dev.ts';
import { connectTemporal } from '../../src/temporal/connect.ts';
import { dataConverter } from '../../src/temporal/codec.ts';
import type { BlockFollowerWorkflow } from '../../src/shared/workflow-signatures.ts';
import { prebuiltWorkflowBundle } from '../../worker/bundle.ts';
import { until } from '../support/polling.ts';
import { testPayloadKey } from '../support/temporal.ts';

/**
 * Temporal counts a parent's children until each closes, and refuses a start past
 * `limit.numPendingChildExecutions.error`: the follower, shared by every account, stalled once
 * one account's long runs reached it. The limit is 2,000 by default; this file's own dev server
 * lowers it to 200 and fires 250 runs (the same 1.25× as 2,500 against the default), which costs
 * a tenth of the starts and proves the same: the code before stalls at the 200th child.
 * The real follower workflow runs on a worker of its own, its block reads stood in for (each round
 * a "block"): its first block fires every run of one account, whose actions go to a task queue
 * nobody polls, so that each stays running as a long run would; a later block fires one run of
 * another account. Its starts are the real ones (src/automations/runs/start-runs.ts), made by the
 * next round as the real round makes them; it is woken once a round, whatever it starts.
 */
const pendingChildrenLimit = 200;
const burst = 250;

let cache: string;
let codePath: string;
let server: TemporalDevServer;
let temporal: { connection: NativeConnection; client: Client };
beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'neoflow-children-'));
  const config = loadConfig();
  const startServer = async () =>
    startTemporalDev({
      temporalPath: await ensureGoProgram(temporalCli, config.binDir, () => undefined),
      port: await freePort(),
      uiPort: undefined,
      uiCodecEndpoint: undefined,
      dbFile: undefined,
      logFile: join(cache, 'temporal.log'),
      namespace: 'default',
      dynamicConfig: [`limit.numPendingChildExecutions.error=${pendingChildrenLimit}`],
    });
  [codePath, server] = await Promise.all([prebuiltWorkflowBundle(cache), startServer()]);
  temporal = await connectTemporal(
    { address: server.address, namespace: 'default', payloadKey: testPayloadKey },
    'shared-with-workers',
  );
}, 180_000);
afterAll(async () => {
  await temporal?.connection.close();
  await server?.stop();
  await rm(cache, { recursive: true, force: true });
});

const status = (client: Client, workflowId: string) =>
  client.workflow
    .getHandle(workflowId)
    .describe()
    .then((described) => described.status.name)
    .catch(() => 'never started');

describe('the block follower, shared by every account', () => {
  it(`keeps reading blocks, and starts another account's run, after one account's block fired ${burst} runs still running (over Temporal's limit of pending children, ${pendingChildrenLimit} here)`, async () => {
    const id = randomBytes(4).toString('hex');
    const followerQueue = `children-follower-${id}`;
    const nobodyPolls = `children-actions-${id}`;
    const run = (account: string, n: number): FiredRun =>
      firedRun(`run_children_${id}_${account}_${n}`, `acct_${account}_${id}`, `auto_${account}_${id}`, 'blockchain');
    const burner = Array.from({ length: burst }, (_, n) => run('burner', n));
    const other = run('other', 0);
    let rounds = 0;
    // As the real round does (activities/automations.ts): it starts the runs the round before fired.
    const followBlocks = async (_network: string, toStart: FiredRun[] = [], actionQueue?: string) => {
      const target = {
        client: temporal.client,
        taskQueue: actionQueue ?? nobodyPolls,
        reuse: 'REJECT_DUPLICATE' as const,
      };
      const starting = startRuns(target, inAccountTurns(toStart));
      rounds += 1;
      if (rounds > 1) await sleep(100);
      await starting;
      return rounds === 1 ? burner : rounds === 3 ? [other] : [];
    };
    const worker = await Worker.create({
      connection: temporal.connection,
      namespace: 'default',
      taskQueue: followerQueue,
      dataConverter: dataConverter(testPayloadKey),
      workflowBundle: { codePath },
      activities: {
        followBlocks,
      },
    });
    const watch = async () => {
      const handle = await temporal.client.workflow.start<BlockFollowerWorkflow>('blockFollower', {
        workflowId: `children-follower-${id}`,
        taskQueue: followerQueue,
        args: [`children-${id}`, nobodyPolls],
      });
      const otherRun = await until(
        () => status(temporal.client, other.runId),
        (name) => name === 'RUNNING',
        60_000,
      );
      const lastBurnerRun = await until(
        () => status(temporal.client, burner.at(-1)!.runId),
        (name) => name === 'RUNNING',
        60_000,
      );
      const roundsThen = rounds;
      const followed = await until(
        async () => rounds,
        (count) => count >= roundsThen + 5,
        30_000,
      );
      await handle.terminate('test ended');
      const { events } = await handle.fetchHistory();
      const tasks = events!.filter(({ workflowTaskCompletedEventAttributes }) => workflowTaskCompletedEventAttributes);
      return { otherRun, lastBurnerRun, roundsThen, followed, tasks: tasks.length, roundsAtEnd: rounds };
    };
    const { otherRun, lastBurnerRun, roundsThen, followed, tasks, roundsAtEnd } = await worker.runUntil(watch());

    expect(otherRun).toBe('RUNNING');
    expect(lastBurnerRun).toBe('RUNNING');
    // Every run of the burst is in flight, and the follower still reads block after block.
    expect(followed).toBeGreaterThanOrEqual(roundsThen + 5);
    // Woken once a round however many runs it starts: its first task, then one per round ended.
    expect(tasks).toBeLessThanOrEqual(roundsAtEnd + 1);
  }, 150_000);
});
