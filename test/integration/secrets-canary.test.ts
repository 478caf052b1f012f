import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { captureOutput, databaseDump } from '../support/canary.ts';
import { issueKey } from '../support/keys.ts';
import { rawHistoryBytes, startApiWithWorker, type RunningWorker } from '../support/worker.ts';

/**
 * The canary: one secret value, read by a granted function that logs it, returns it and throws
 * it. Afterwards the value is found nowhere but in that function's own result.
 */
const canary = `canary-${randomBytes(12).toString('hex')}`;

let api: TestApi;
let worker: RunningWorker;
let send: ApiCall;
const output: string[] = [];
const responses: unknown[] = [];
let restoreOutput: () => void;

beforeAll(async () => {
  restoreOutput = captureOutput(output);
  ({ api, worker } = await startApiWithWorker());
  send = testApi(api.url, (await issueKey(api.database.orm)).key);
});
afterAll(async () => {
  restoreOutput();
  await worker.stop();
  await api.close();
});

/** Every response body is kept, to be searched for the canary at the end. */
async function call(method: string, path: string, body?: unknown) {
  const response = await send(method, path, body);
  responses.push(response.body);
  return response;
}

const grantedCode = `module.exports = async (context) => {
  const value = context.secrets.CANARY;
  context.log.info('the secret is ' + value);
  if (context.params.fail) throw new Error('leaking ' + value);
  return { value };
};`;

const ungrantedCode = `module.exports = async (context) => {
  const direct = context.secrets.CANARY;
  const viaGet = await context.secrets.get('CANARY').then(() => 'read', (error) => error.message);
  return { direct: direct === undefined ? 'undefined' : 'read', viaGet };
};`;

describe('a secret value never leaks', () => {
  it('stays out of PostgreSQL, API responses, logs and Temporal history', async () => {
    expect((await call('POST', '/secrets', { name: 'CANARY', value: canary })).status).toBe(201);
    const fn = await call('POST', '/functions', {
      name: 'canary',
      code: grantedCode,
      runtime: 'node18',
      secrets: ['CANARY'],
    });
    const fnId = fn.body.data.id as string;

    const returned = await call('POST', `/functions/${fnId}/invoke`, {});
    expect(returned.body.data.result).toEqual({ value: canary });
    const returnedId = returned.body.data.execution.id as string;
    const thrown = await call('POST', `/functions/${fnId}/invoke`, { params: { fail: true } });
    expect(thrown.status).toBe(500);
    expect(thrown.body.error!.message).toBe('leaking [secret:CANARY]');
    const thrownId = thrown.body.error!.details.executionId as string;

    const details = await call('GET', `/functions/${fnId}/executions/${returnedId}`);
    expect(details.body.data.logs[0].message).toBe('the secret is [secret:CANARY]');
    expect(details.body.data.secretsRead).toEqual(['CANARY']);
    await call('GET', `/functions/${fnId}/executions/${thrownId}`);
    await call('GET', `/functions/${fnId}/executions`);
    await call('GET', '/secrets');

    // The function's own result is the one place the value may appear.
    delete returned.body.data.result;
    delete details.body.data.result;
    expect(JSON.stringify(responses)).not.toContain(canary);
    expect(await databaseDump(api)).not.toContain(canary);
    expect(await databaseDump(api)).not.toContain(Buffer.from(canary).toString('hex'));
    expect(output.join('')).not.toContain(canary);
    for (const id of [returnedId, thrownId]) expect((await rawHistoryBytes(api, id)).includes(canary)).toBe(false);
  });

  it('cannot be read by a function it is not granted to', async () => {
    const fn = await call('POST', '/functions', { name: 'nosy', code: ungrantedCode, runtime: 'node18' });
    const invoked = await call('POST', `/functions/${fn.body.data.id as string}/invoke`, {});
    expect(invoked.body.data.result).toEqual({
      direct: 'undefined',
      viaGet: 'Secret CANARY is not granted to this function.',
    });
  });
});
