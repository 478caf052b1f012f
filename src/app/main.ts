import { Runtime } from '@temporalio/worker';
import { startApi } from './server.ts';
import type { Config } from '../config.ts';
import { LocalRuns } from '../functions/local-runs.ts';
import { createLogger } from '../log.ts';
import { temporalLogging } from '../temporal/runtime-logger.ts';
import { openRuntime } from '../runtime.ts';
import { servicesOf } from '../services.factory.ts';
import { createWorker } from '../../worker/worker.ts';
import { untilSignal } from './signals.ts';

/**
 * `neoflow api`: the HTTP API and a worker of its own over one runtime, so that the runs it starts
 * are started eagerly and their code runs here (worker/worker.ts, role `api`). Runs until a
 * signal, or until its worker fails, which ends the process (a supervisor starts it again).
 */
export async function runApiProcess(config: Config): Promise<void> {
  const log = createLogger('api', config.logLevel);
  // This process decides when its worker stops: after the HTTP server, on the signals it awaits.
  Runtime.install({ ...temporalLogging(log, config.logLevel), shutdownSignals: [] });
  const runtime = await openRuntime(config);
  try {
    // The runs the API starts and its worker runs: one instance, given to both.
    const localRuns = new LocalRuns();
    const worker = await createWorker(config, runtime, 'api', localRuns);
    const running = worker.run();
    const api = await startApi(servicesOf(config, log, runtime, localRuns)).catch(async (error: unknown) => {
      worker.shutdown();
      await running;
      throw error;
    });
    const ended = await Promise.race([untilSignal(), running.then(() => 'worker stopped' as const)]);
    await api.close();
    if (ended === 'worker stopped') throw new Error('the API worker stopped');
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  } finally {
    await runtime.close();
  }
}
