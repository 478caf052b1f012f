import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { automationsClient, gasHash } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Checks every second, two misses in a row: the defaults are 30 s and 10.
const running = apiWithWorkerForThisFile({
  env: { NEOFLOW_CONTRACT_CHECK_SECONDS: '1', NEOFLOW_TRIGGER_FAILURES: '2' },
});
let client: ReturnType<typeof automationsClient>;
let functionId: string;
beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  functionId = await client.deploy('module.exports = async () => 1;');
});

const watching = (scriptHash: string) => ({
  name: `watch ${scriptHash}`,
  // No event: names are checked against a deployed contract's manifest at create.
  trigger: { type: 'blockchain', scriptHash },
  action: { type: 'function', functionId },
});

it('moves a blockchain automation whose contract is not deployed to error, leaves a deployed one active, and revives on PATCH', async () => {
  const nowhere = `0x${randomBytes(20).toString('hex')}`;
  const undeployed = await client.create(watching(nowhere));
  const deployed = await client.create(watching(gasHash));
  const stopped = await until(
    async () => (await client.call('GET', `/automations/${undeployed}`)).body,
    (body) => body.status === 'error',
  );
  expect(stopped).toMatchObject({
    status: 'error',
    details: {
      reason: 'trigger_unavailable',
      message: 'The contract to watch was not deployed in 2 checks in a row.',
      since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      lastError: `No contract ${nowhere} is deployed on this network.`,
    },
  });
  // Checked in the same rounds, found deployed each time.
  expect((await client.call('GET', `/automations/${deployed}`)).body.status).toBe('active');

  const revived = await client.call('PATCH', `/automations/${undeployed}`, { status: 'active' });
  expect(revived.status).toBe(200);
  expect(revived.body).toMatchObject({ status: 'active' });
  expect(revived.body.details).toBeUndefined();
});
