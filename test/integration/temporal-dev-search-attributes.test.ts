import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../src/net/ports.ts';
import { ensureGoProgram, temporalCli } from '../../src/stack/binaries.ts';
import { startTemporalDev, type TemporalDevServer } from '../../src/stack/temporal-dev.ts';
import { connectTemporal } from '../../src/temporal/connect.ts';
import { labelAttributes } from '../../src/shared/workflow-attributes.ts';
import { until } from '../support/polling.ts';
import { scratchDataDir } from '../support/scratch-services.ts';
import { testPayloadKey } from '../support/temporal.ts';

let scratch: string;
let server: TemporalDevServer;
let client: Client;
let closeClient: () => Promise<void>;
let metricsUrl: string;

beforeAll(async () => {
  scratch = await scratchDataDir('neoflow-dev-server-');
  const logFile = join(scratch, 'temporal.log');
  server = await startTemporalDev({
    temporalPath: await ensureGoProgram(temporalCli, loadConfig({}).binDir, () => {}),
    port: await freePort(),
    uiPort: undefined,
    uiCodecEndpoint: undefined,
    dbFile: undefined,
    logFile,
    namespace: 'default',
  });
  // The dev server prints where its Prometheus metrics are served when it starts.
  const printed = await until(
    () => readFile(logFile, 'utf8'),
    (text) => /Metrics: \S+/.test(text),
  );
  metricsUrl = /Metrics: (\S+)/.exec(printed)![1]!;
  const connected = await connectTemporal({
    address: server.address,
    namespace: 'default',
    payloadKey: testPayloadKey,
  });
  client = connected.client;
  closeClient = () => connected.connection.close();
}, 120_000);

afterAll(async () => {
  await closeClient?.();
  await server?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** How many requests of `operation` the server made to its database so far, every service counted. */
async function persistenceRequests(operation: string, namespace?: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('persistence_requests{') && line.includes(`operation="${operation}"`))
    .filter((line) => namespace === undefined || line.includes(`namespace="${namespace}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * The server's reads of its cluster metadata, once its metrics show the test's first `created`
 * workflows (its own system workflows live in another namespace): it publishes them about once a
 * second, and a start's reads come before its workflow is created.
 */
async function clusterMetadataReadsOnceCreated(created: number): Promise<number> {
  await until(
    () => persistenceRequests('CreateWorkflowExecution', 'default'),
    (count) => count >= created,
  );
  return persistenceRequests('GetCurrentClusterMetadata');
}

it('the dev server serves search attributes from its cache: starting workflows that carry them reads no cluster metadata', async () => {
  const start = (index: number) =>
    client.workflow.start('noWorkerPollsThis', {
      workflowId: `cached-attributes-${index}`,
      taskQueue: 'no-worker-polls-this',
      typedSearchAttributes: labelAttributes({ accountId: 'acc_test', functionId: 'fn_test', trigger: 'api' }),
    });
  // The first start fills the caches (they start empty).
  await start(0);
  const before = await clusterMetadataReadsOnceCreated(1);
  const starts = 20;
  for (let index = 1; index <= starts; index++) await start(index);
  // `start-dev`'s own default reads the metadata three times for each start: 60 here.
  expect((await clusterMetadataReadsOnceCreated(1 + starts)) - before).toBeLessThan(starts);
});
