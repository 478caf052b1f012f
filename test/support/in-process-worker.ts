import type { Config } from '../../src/config.ts';
import { openWorker } from '../../worker/worker.ts';

/**
 * A real worker in this process, configured by `config`, running until stopped. Free of vitest,
 * so that the benchmarks run theirs with it too.
 */
export async function runInProcessWorker(config: Config): Promise<{ stop(): Promise<void> }> {
  const handle = await openWorker(config);
  const running = handle.worker.run();
  return {
    stop: async () => {
      handle.worker.shutdown();
      await running;
      await handle.close();
    },
  };
}
