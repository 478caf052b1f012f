import type { Config } from '../../src/config.ts';
import { openWorker, runWorkers, shutdownWorkers } from '../../worker/worker.ts';

/**
 * A real worker in this process, configured by `config`, running until stopped. Free of vitest,
 * so that the benchmarks run theirs with it too.
 */
export async function runInProcessWorker(config: Config): Promise<{ stop(): Promise<void> }> {
  const handle = await openWorker(config);
  const running = runWorkers(handle);
  return {
    stop: async () => {
      shutdownWorkers(handle);
      await running;
      await handle.close();
    },
  };
}
