import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connectTemporal } from '../../src/temporal/connect.ts';

/** One payload key for every test client and worker, so any of them can read the others' payloads. */
export const testPayloadKey = Buffer.alloc(32, 9);
export const testOperatorToken = 'test-operator-token-0123456789';

/** A fixed master key for tests that seal secrets. */
export const testMasterKey = Buffer.alloc(32, 42);

/** A fixed receipt key: every test execution is signed as a deployment's would be. */
export const testReceiptKey = '5eceb7e5eceb7e5eceb7e5eceb7e5eceb7e5eceb7e5eceb7e5eceb7e5eceb7e0';

/** The variables `loadConfig` reads them from. */
export const testSecretsEnv = {
  NEOFLOW_PAYLOAD_KEY: testPayloadKey.toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: testOperatorToken,
  NEOFLOW_MASTER_KEY: testMasterKey.toString('base64'),
  NEOFLOW_RECEIPT_KEY: testReceiptKey,
};

/** Tests serve their price sources on loopback, which tenants' requests cannot reach by default. */
export const testEgressEnv = { NEOFLOW_EGRESS_ALLOW: '127.0.0.1' };

/** Tests fire schedules and read prices every second, under the 10 s a deployment allows by default. */
export const testIntervalsEnv = { NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '1', NEOFLOW_SHORTEST_POLL_SECONDS: '1' };

/**
 * This test file's task queue (each file loads its own modules), which its APIs and workers poll
 * unless told another: files run two at a time on the shared Temporal never take each other's
 * work, nor share a reconciler or a block follower (their workflow ids name the queue).
 */
export const testTaskQueue = `test-${randomBytes(4).toString('hex')}`;

/** What a worker or `neoflow api` under test needs: the shared services, this file's database and task queue, the test keys. */
export const testWorkerEnv = (databaseUrl: string, extra: Record<string, string> = {}) => ({
  TEMPORAL_ADDRESS: inject('temporalAddress'),
  NEO_RPC_URL: inject('neoRpcUrl'),
  DATABASE_URL: databaseUrl,
  NEOFLOW_TASK_QUEUE: testTaskQueue,
  ...testSecretsEnv,
  ...testEgressEnv,
  ...testIntervalsEnv,
  ...extra,
});

/** A client of the shared Temporal server with the tests' payload key, on a connection a worker can share. */
export const connectTestTemporal = (address: string = inject('temporalAddress')) =>
  connectTemporal({ address, namespace: 'default', payloadKey: testPayloadKey }, 'shared-with-workers');
