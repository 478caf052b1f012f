import { readFile } from 'node:fs/promises';
import { waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { withSharedBundleCache } from './bundle-cache.ts';
import { spawnNeoflow } from './neoflow-command.ts';
import { testWorkerEnv } from './temporal.ts';

export interface WorkerProcess {
  process: ManagedProcess;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * `neoflow worker` as its own process over `databaseUrl`, on `taskQueue`, its output in `logFile`
 * (one file per process), once it says it is polling. `env` names the services and keys it uses:
 * by default the tests' shared ones; the benchmarks, which run outside vitest, pass their own.
 */
export async function startWorkerProcess(
  databaseUrl: string,
  taskQueue: string,
  dataDir: string,
  logFile: string,
  env: Record<string, string> = testWorkerEnv(databaseUrl),
): Promise<WorkerProcess> {
  const worker = spawnNeoflow(
    'worker',
    {
      NEOFLOW_LOG_LEVEL: 'info',
      ...env,
      DATABASE_URL: databaseUrl,
      NEOFLOW_TASK_QUEUE: taskQueue,
      NEOFLOW_DATA_DIR: await withSharedBundleCache(dataDir),
    },
    logFile,
  );
  const log = () => readFile(logFile, 'utf8').catch(() => '');
  try {
    // A worker that finds no bundle of the current workflows builds it (seconds): be generous.
    await waitFor(
      `neoflow worker (log ${logFile})`,
      async () => ((await log()).includes('"msg":"polling"') ? true : undefined),
      {
        timeoutMs: 90_000,
        aborted: worker.exited,
      },
    );
  } catch (error) {
    await worker.stop(2000);
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await log()}`, { cause: error });
  }
  return { process: worker, logFile, stop: () => worker.stop() };
}
