import { readFile } from 'node:fs/promises';
import { spawnManaged, waitFor, type ManagedProcess } from '../../src/stack/process.ts';
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
  const cli = new URL('../../bin/neoflow.js', import.meta.url).pathname;
  const worker = spawnManaged('worker', process.execPath, {
    args: ['--no-node-snapshot', cli, 'worker'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NEOFLOW_ENV: 'test',
      NEOFLOW_LOG_LEVEL: 'info',
      ...env,
      DATABASE_URL: databaseUrl,
      NEOFLOW_TASK_QUEUE: taskQueue,
      NEOFLOW_DATA_DIR: dataDir,
    },
    output: logFile,
  });
  const log = () => readFile(logFile, 'utf8').catch(() => '');
  try {
    // The first start bundles the workflows (cached in dataDir for the next one): be generous.
    await waitFor(
      `neoflow worker (log ${logFile})`,
      async () => ((await log()).includes(' polling ') ? true : undefined),
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
