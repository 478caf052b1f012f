import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Router } from '@koa/router';
import { inject } from 'vitest';
import { createApp, type ApiResources } from '../../src/app/app.ts';
import { apiListener } from '../../src/app/server.ts';
import { triggerControlOf } from '../../src/automations/trigger-control.service.ts';
import { openNetworks } from '../../src/chain/nodes/networks.ts';
import { loadConfig } from '../../src/config.ts';
import { LocalRuns } from '../../src/functions/local-runs.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { shorthandNetwork } from '../../src/net/neo-networks.ts';
import type { Resources } from '../../src/resources.ts';
import { masterKeysOf, payloadKeysOf } from '../../src/crypto/master-keys.ts';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ensureRecoveryLoop, recoveryWorkflowId } from '../../src/recovery/recovery-loop.ts';
import { createWorker } from '../../worker/worker.ts';
import { connectTestTemporal, testEgressEnv, testIntervalsEnv, testSecretsEnv, testTaskQueue } from './temporal.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { answerCheck } from './answer-check.ts';
import { closeServer } from './close-server.ts';

export interface TestApi {
  url: string;
  /** What the app is built over, its trigger control included. */
  services: ApiResources;
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * The real app on a random port, over this file's own database and the shared services. With
 * `hostWorker`, it hosts its own worker as `neoflow api` does, and starts runs eagerly.
 */
export async function startTestApi(
  extraRouters: Router[] = [],
  env: Record<string, string> = {},
  {
    hostWorker = false,
    temporalAddress,
    log = createLogger('api-test', 'warn'),
  }: { hostWorker?: boolean; temporalAddress?: string; log?: Logger } = {},
): Promise<TestApi> {
  const database = await createTestDatabase();
  const temporal = await connectTestTemporal(temporalAddress);
  const config = loadConfig({
    NEOFLOW_ENV: 'test',
    NEOFLOW_TASK_QUEUE: testTaskQueue,
    ...testSecretsEnv,
    ...testEgressEnv,
    ...testIntervalsEnv,
    ...env,
  });
  // A file that runs a chain of its own names it (NEO_RPC_URL or NEOFLOW_NETWORKS), for the API and its worker alike.
  const networks = await openNetworks(config.neo.networks ?? shorthandNetwork(inject('neoRpcUrl')), {
    log,
    agreement: config.neo.blockAgreement,
  });
  const resources: Resources = {
    config,
    log,
    orm: database.orm,
    em: () => database.orm.em,
    temporal,
    neo: networks.first,
    networks,
    masterKeys: masterKeysOf(config),
    payloadKeys: payloadKeysOf(config),
  };
  const localRuns = hostWorker ? new LocalRuns() : undefined;
  const services = { ...resources, triggerControl: triggerControlOf(resources), localRuns };
  const worker = hostWorker ? await createWorker(resources, 'api', { localRuns }) : undefined;
  const running = worker?.run();
  // As every API start does: whatever dies between a row and its workflow's start is swept.
  const { taskQueue } = config.temporal;
  await ensureRecoveryLoop(temporal.client, taskQueue, config.recovery.intervalMs);
  const server = createServer(apiListener(services, createApp(services, extraRouters, answerCheck)));
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    services,
    database,
    close: async () => {
      await closeServer(server);
      worker?.shutdown();
      await running;
      await temporal.client.workflow
        .getHandle(recoveryWorkflowId(taskQueue))
        .terminate('the test API closed')
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        });
      await temporal.connection.close();
      networks.close();
      await database.drop();
    },
  };
}
