/**
 * The floor of `bench:run-cost`: what a run fired by a Temporal Schedule and one started over the
 * client cost Temporal and a worker when the run does nothing, so that the part of a scheduled
 * run's cost that is the Schedule's own is known. The floor's worker is a process of its own
 * (bench/floor/floor-worker.ts: Neoflow's worker class, a task queue of its own, no codec, no
 * database) running `floorWorkflow` (one no-op local activity in its first task). Its schedules
 * are written as Neoflow writes an automation's (the same cron, overlap ALLOW_ALL), with nothing
 * else; its client starts the same workflow without eager start, as the API starts a run.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { scheduleCron } from '../src/automations/model/cron.ts';
import { spawnManaged, waitFor } from '../src/stack/process.ts';
import { floorTaskQueue } from './floor/floor.ts';

/** The floor worker's command line, as the bench's CPU sampler tells its process. */
export const floorWorkerPattern = /floor\/floor-worker\.ts/;

export type FloorKind = 'floor-schedule' | 'floor-api';

export interface RunFloor {
  /** Fires the floor's runs of `kind` (each of its `count` schedules or starts once a second) until stopped. */
  fire(kind: FloorKind): Promise<{ stop(): Promise<void> }>;
  /** Floor runs started in [from, to), by Temporal's visibility. */
  runsStarted(from: number, to: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the floor's worker (its output in `logFile`) and writes its `count` schedules, paused, on
 * the server at `address`.
 */
export async function startRunFloor(address: string, count: number, logFile: string): Promise<RunFloor> {
  const script = fileURLToPath(new URL('./floor/floor-worker.ts', import.meta.url));
  const worker = spawnManaged('floor worker', process.execPath, {
    args: ['--no-node-snapshot', script, address],
    output: logFile,
  });
  try {
    await waitFor(
      `floor worker (log ${logFile})`,
      async () => ((await readFile(logFile, 'utf8').catch(() => '')).includes('polling') ? true : undefined),
      { timeoutMs: 90_000, aborted: worker.exited },
    );
  } catch (error) {
    await worker.stop(2000);
    throw error;
  }
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const scheduleIds = Array.from({ length: count }, (_, i) => `floor-${i}`);
  for (const scheduleId of scheduleIds) {
    await client.schedule.create({
      scheduleId,
      spec: { cronExpressions: [scheduleCron('* * * * * *')] },
      action: {
        type: 'startWorkflow',
        workflowType: 'floorWorkflow',
        workflowId: scheduleId,
        taskQueue: floorTaskQueue,
      },
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
      state: { paused: true },
    });
  }
  const schedules = scheduleIds.map((id) => client.schedule.getHandle(id));
  let started = 0;
  const startOnce = () =>
    Promise.all(
      scheduleIds.map((id) =>
        client.workflow.start('floorWorkflow', { workflowId: `${id}-api-${started++}`, taskQueue: floorTaskQueue }),
      ),
    );
  return {
    async fire(kind) {
      if (kind === 'floor-schedule') {
        await Promise.all(schedules.map((schedule) => schedule.unpause()));
        return { stop: async () => void (await Promise.all(schedules.map((schedule) => schedule.pause()))) };
      }
      return everySecond(startOnce);
    },
    async runsStarted(from, to) {
      const at = (ms: number) => new Date(ms).toISOString();
      const query = `WorkflowType = 'floorWorkflow' AND StartTime >= '${at(from)}' AND StartTime < '${at(to)}'`;
      return (await client.workflow.count(query)).count;
    },
    async stop() {
      await connection.close();
      await worker.stop();
    },
  };
}

/** Calls `task` once a second until stopped. */
export function everySecond(task: () => Promise<unknown>) {
  let stopped = false;
  const loop = (async () => {
    for (let next = Date.now(); !stopped; next += 1000) {
      await task();
      await new Promise((resolveSleep) => setTimeout(resolveSleep, Math.max(0, next + 1000 - Date.now())));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
