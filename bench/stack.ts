import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig } from '../src/config.ts';
import type { TemporalHandle } from '../src/temporal/connect.ts';
import { runInProcessWorker } from '../test/support/in-process-worker.ts';
import type { Progress } from './measure.ts';
import { elapsed, startInProcessApi, startScratchStack, type ScratchStack } from './scratch-stack.ts';

export interface BenchStack {
  apiUrl: string;
  apiKey: string;
  taskQueue: string;
  orm: MikroORM;
  temporal: TemporalHandle;
  /** Stops the API, the worker, then the services; removes the scratch directory. */
  stop(): Promise<void>;
}

/**
 * The real stack, started like the integration tests start it: embedded PostgreSQL, the Temporal
 * dev server and a neo-go devnet on free ports in a scratch directory, then a migrated database,
 * the API in-process over HTTP and one real worker.
 */
export async function startBenchStack(progress: Progress): Promise<BenchStack> {
  return startScratchStack('neoflow-bench-', progress, async (base) => {
    await startInProcessWorker(base, progress);
    const { apiUrl, apiKey, temporal } = await startInProcessApi(
      base,
      progress,
      {},
      {
        rate: { requests: 1_000_000, windowSeconds: 1 },
      },
    );
    return { apiUrl, apiKey, taskQueue: base.env.NEOFLOW_TASK_QUEUE, orm: base.orm, temporal };
  });
}

async function startInProcessWorker(base: ScratchStack, progress: Progress) {
  const began = performance.now();
  const workerDir = join(base.scratch, 'worker');
  await mkdir(workerDir, { recursive: true });
  const config = loadConfig({ ...base.env, NEOFLOW_LOG_LEVEL: 'warn', NEOFLOW_DATA_DIR: workerDir });
  const worker = await runInProcessWorker(config);
  base.onStop(() => worker.stop());
  progress(`worker polling task queue ${config.temporal.taskQueue} (${elapsed(began)})`);
}
