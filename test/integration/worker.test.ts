import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../src/config.ts';
import { searchAttributeNames, ensureSearchAttributes } from '../../src/temporal/search-attributes.ts';
import { openWorker } from '../../worker/worker.ts';
import type { pingWorkflow } from '../../workflows/ping.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { connectTestTemporal, testWorkerEnv } from '../support/temporal.ts';

let connection: NativeConnection;
let client: Client;
let db: TestDatabase;
beforeAll(async () => {
  ({ connection, client } = await connectTestTemporal());
  db = await createTestDatabase();
});
afterAll(async () => {
  await connection.close();
  await db.drop();
});

describe('worker', () => {
  it('polls the task queue and runs a workflow with its activity', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'neoflow-worker-'));
    const taskQueue = `test-${Date.now()}`;
    const config = loadConfig(testWorkerEnv(db.url, { NEOFLOW_DATA_DIR: dataDir, NEOFLOW_TASK_QUEUE: taskQueue }));
    const { worker, close } = await openWorker(config, { mainOnly: true });
    try {
      const result = await worker.runUntil(
        client.workflow.execute<typeof pingWorkflow>('pingWorkflow', { taskQueue, workflowId: `ping_${taskQueue}` }),
      );
      expect(result).toEqual({ workerId: expect.stringMatching(/:\d+$/) });
    } finally {
      await close();
    }
  });

  it('reuses the prebuilt workflow bundle on the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'neoflow-worker-'));
    const config = loadConfig({ TEMPORAL_ADDRESS: inject('temporalAddress'), NEOFLOW_DATA_DIR: dataDir });
    const { prebuiltWorkflowBundle } = await import('../../worker/bundle.ts');
    const path = await prebuiltWorkflowBundle(join(config.dataDir, 'cache'));
    const built = await stat(path);
    expect(await prebuiltWorkflowBundle(join(config.dataDir, 'cache'))).toBe(path);
    // Compared by the file, not by timing: a loaded CI machine makes durations meaningless.
    expect((await stat(path)).mtimeMs).toBe(built.mtimeMs);
    expect(await readdir(join(config.dataDir, 'cache'))).toEqual([basename(path)]);
  });

  it('has the Neoflow search attributes registered, idempotently', async () => {
    await ensureSearchAttributes(connection, 'default');
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    for (const name of searchAttributeNames) expect(customAttributes).toHaveProperty(name);
  });
});
