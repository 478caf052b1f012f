import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Execution } from '../../src/functions/execution.entity.ts';
import { openResult } from '../../src/functions/result-seal.ts';
import { open } from '../../src/crypto/envelope.ts';
import { neoflow } from '../support/cli.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { testMasterKey } from '../support/temporal.ts';
import { apiWithWorkerForThisFile, startTestWorker } from '../support/worker.ts';

// An API without a worker of its own: the worker process alone reads the secrets, so restarting
// it is the whole rotation here (with `neoflow api`, which runs code too, the API restarts as well).
const running = apiWithWorkerForThisFile({ hostWorker: false });
let key: string;
let send: ApiCall;
beforeAll(async () => {
  ({ key } = await issueKey(running.api.database.orm));
  send = testApi(running.api.url, key);
});

const call = async (method: string, path: string, body?: unknown) => (await send(method, path, body)).body;

async function finished(executionId: string) {
  for (let tries = 0; tries < 100; tries++) {
    const execution = await running.api.database.orm.em.fork().findOneOrFail(Execution, { id: executionId });
    if (execution.status !== 'running') return execution;
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  throw new Error(`execution ${executionId} did not finish`);
}

describe('master key rotation, seen from a function', () => {
  it('keeps every secret readable in a function once the old master key is gone', async () => {
    await call('POST', '/secrets', { name: 'ROTATED', value: 'still-readable' });
    const fn = await call('POST', '/functions', {
      name: 'reader',
      runtime: 'node18',
      code: 'module.exports = async (context) => context.secrets.ROTATED;',
      secrets: ['ROTATED'],
    });
    const before = await call('POST', `/functions/${fn.data.id as string}/invoke`, {});
    expect(before.data.result).toBe('still-readable');
    // An answer kept for an Idempotency-Key is sealed too.
    const kept = await fetch(`${running.api.url}/v1/functions/${fn.data.id as string}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': 'rotation' },
      body: '{}',
    });
    expect(kept.status).toBe(200);

    const newKey = randomBytes(32);
    const rotated = await neoflow(['secrets', 'rotate-master'], {
      DATABASE_URL: running.api.database.url,
      NEOFLOW_MASTER_KEY: newKey.toString('base64'),
      NEOFLOW_PREVIOUS_MASTER_KEYS: testMasterKey.toString('base64'),
    });
    expect(rotated.code).toBe(0);

    // The old key leaves the worker's configuration entirely.
    await running.worker.stop();
    running.worker = await startTestWorker(running.api.database.url, running.taskQueue, {
      NEOFLOW_MASTER_KEY: newKey.toString('base64'),
    });
    const after = await call('POST', `/functions/${fn.data.id as string}/invoke`, { async: true });
    const execution = await finished(after.data.execution.id as string);
    const onlyNewKey = { current: newKey, previous: [] };
    expect(execution.status).toBe('completed');
    expect(await openResult(running.api.database.orm.em.fork(), onlyNewKey, execution)).toBe('still-readable');
    const earlier = await finished(before.data.execution.id as string);
    expect(await openResult(running.api.database.orm.em.fork(), onlyNewKey, earlier)).toBe('still-readable');
    const [answer] = await running.api.database.orm.em
      .getConnection()
      .execute<{ account_id: string; ciphertext: Buffer; wrapped_key: Buffer; master_key_id: string }[]>(
        `select "account_id", "ciphertext", "wrapped_key", "master_key_id" from "idempotent_requests" where "key" = 'rotation'`,
      );
    const sealed = {
      ciphertext: answer!.ciphertext,
      wrappedKey: answer!.wrapped_key,
      masterKeyId: answer!.master_key_id,
    };
    const reopened = JSON.parse(open(sealed, `idempotency:${answer!.account_id}:rotation`, onlyNewKey)) as {
      body: { data: { result: unknown } };
    };
    expect(reopened.body.data.result).toBe('still-readable');
  });
});
