import { Runtime } from '@temporalio/worker';
import { resumeBlockFollower } from '../automations/automations.service.ts';
import { stopAutomationsOfRemovedNetworks } from '../automations/network-removal.control.ts';
import { triggerControlOf } from '../automations/trigger-control.service.ts';
import type { Config } from '../config.ts';
import { LocalRuns } from '../functions/local-runs.ts';
import { createLogger } from '../log.ts';
import { ensureRecoveryLoop } from '../recovery/recovery-loop.ts';
import { closeResources, openResources } from '../open-resources.ts';
import type { Resources } from '../resources.ts';
import { temporalLogging } from '../temporal/runtime-logger.ts';
import { createWorker } from '../../worker/worker.ts';
import type { ApiResources } from './app.ts';
import { startApi } from './server.ts';
import { untilSignal } from './signals.ts';

/**
 * `neoflow api`: the HTTP API and a worker of its own over the same resources, so that the runs it
 * starts are started eagerly and their code runs here (worker/worker.ts, role `api`). Runs until a
 * signal, or until its worker fails, which ends the process (a supervisor starts it again).
 */
export async function runApiProcess(config: Config): Promise<void> {
  const log = createLogger('api', config.logLevel);
  // This process decides when its worker stops: after the HTTP server, on the signals it awaits.
  Runtime.install({ ...temporalLogging(log, config.logLevel), shutdownSignals: [] });
  const resources = await openResources(config, log);
  try {
    // The process's state, made once and given to both sides: what keeps Temporal's triggers in
    // line with the rows, and the runs the API starts and its worker runs.
    const triggerControl = triggerControlOf(resources);
    const localRuns = new LocalRuns();
    const apiResources = { ...resources, triggerControl, localRuns };
    const worker = await createWorker(resources, 'api', { control: triggerControl, localRuns });
    const running = worker.run();
    const api = await startApi(apiResources).catch(async (error: unknown) => {
      worker.shutdown();
      await running;
      throw error;
    });
    await stopRemovedNetworks(apiResources);
    await resumeFollower(apiResources);
    await startReconcilerLoop(resources);
    const ended = await Promise.race([untilSignal(), running.then(() => 'worker stopped' as const)]);
    await api.close();
    if (ended === 'worker stopped') throw new Error('the API worker stopped');
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  } finally {
    await closeResources(resources);
  }
}

/** Starts the block follower again if blockchain automations need it; the API serves without it. */
async function resumeFollower({ orm, log, triggerControl }: ApiResources) {
  await resumeBlockFollower(orm.em.fork(), triggerControl).catch((error: unknown) =>
    log.warn('the block follower could not be resumed', { error: String(error) }),
  );
}

/** Moves the active automations of networks no longer configured to `error`; the API serves meanwhile. */
async function stopRemovedNetworks({ orm, log, triggerControl }: ApiResources) {
  try {
    const stopped = await stopAutomationsOfRemovedNetworks(orm.em.fork(), triggerControl);
    if (stopped > 0) log.warn('automations of networks no longer configured moved to error', { stopped });
  } catch (error) {
    log.warn('the automations of removed networks could not be stopped', { error: String(error) });
  }
}

/** Starts the reconciler's loop unless it runs; the API serves without it. */
async function startReconcilerLoop({ config, log, temporal }: Resources) {
  await ensureRecoveryLoop(temporal.client, config.temporal.taskQueue, config.recovery.intervalMs).catch(
    (error: unknown) => log.warn('the reconciler loop could not be started', { error: String(error) }),
  );
}
