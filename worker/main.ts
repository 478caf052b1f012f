import { Runtime } from '@temporalio/worker';
import { metricsToken } from '../src/auth/operator-token.ts';
import type { Config } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { temporalLogging } from '../src/temporal/runtime-logger.ts';
import { serveWorkerMetrics } from './metrics-server.ts';
import { runsTaskQueue } from '../src/temporal/task-queues.ts';
import { openWorker, runWorkers } from './worker.ts';

/**
 * The worker process: runs until SIGTERM or SIGINT, then lets running activities finish within
 * the grace time. Start it with --no-node-snapshot (isolated-vm needs it).
 */
export async function runWorker(config: Config): Promise<void> {
  const log = createLogger('worker', config.logLevel);
  Runtime.install({ ...temporalLogging(log, config.logLevel), shutdownSignals: ['SIGINT', 'SIGTERM'] });
  const handle = await openWorker(config, { log });
  const metrics =
    config.worker.metricsPort === 0
      ? undefined
      : await serveWorkerMetrics(config.worker.metricsPort, metricsToken(config.secrets), log);
  const { taskQueue, address } = config.temporal;
  log.info('polling', { taskQueue, runsTaskQueue: runsTaskQueue(taskQueue), address });
  try {
    await runWorkers(handle);
  } finally {
    await metrics?.close();
    await handle.close();
    log.info('stopped');
  }
}
