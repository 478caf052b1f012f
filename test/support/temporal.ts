import { inject } from 'vitest';
import { connectTemporal } from '../../src/temporal/connect.ts';

/** One payload key for every test client and worker, so any of them can read the others' payloads. */
export const testPayloadKey = Buffer.alloc(32, 9);
export const testOperatorToken = 'test-operator-token-0123456789';

/** The variables `loadConfig` reads them from. */
export const testSecretsEnv = {
  NEOFLOW_PAYLOAD_KEY: testPayloadKey.toString('base64'),
  NEOFLOW_OPERATOR_TOKEN: testOperatorToken,
};

/** A client of the shared Temporal server with the tests' payload key. */
export const connectTestTemporal = () =>
  connectTemporal({ address: inject('temporalAddress'), namespace: 'default', payloadKey: testPayloadKey });
