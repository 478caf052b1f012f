import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import type { Envelope } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let key: string;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  ({ key } = await issueKey(api.database.orm));
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now()}`;

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}, apiKey = key) {
  const response = await fetch(`${api.url}/v1${path}`, {
    method,
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    replayed: response.headers.get('Idempotent-Replayed'),
    body: (await response.json()) as Envelope,
  };
}

async function deploy(code: string): Promise<string> {
  const created = await call('POST', '/functions', { name: unique('idem'), runtime: 'node18', code });
  return created.body.data!.id as string;
}

async function executionsOf(functionId: string): Promise<number> {
  const listed = await fetch(`${api.url}/v1/functions/${functionId}/executions`, { headers: { 'X-API-Key': key } });
  return ((await listed.json()) as Envelope).pagination!.total;
}

describe('Idempotency-Key', () => {
  it('answers a repeated create with the first answer, creating one function', async () => {
    const idempotencyKey = unique('create');
    const body = { name: unique('fn'), runtime: 'node18', code: 'module.exports = async () => 1;' };
    const first = await call('POST', '/functions', body, { 'Idempotency-Key': idempotencyKey });
    // The same fields in another order are the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await call('POST', '/functions', reordered, { 'Idempotency-Key': idempotencyKey });
    expect(first).toMatchObject({ status: 201, replayed: null });
    expect(again).toEqual({ status: 201, replayed: 'true', body: first.body });
    const listed = await fetch(`${api.url}/v1/functions?limit=100`, { headers: { 'X-API-Key': key } });
    const names = ((await listed.json()) as Envelope).data.map((fn: { name: string }) => fn.name);
    expect(names.filter((name: string) => name === body.name)).toHaveLength(1);
  });

  it('runs a repeated invoke once and answers its result again, a failed one with the same 500', async () => {
    const counted = await deploy('module.exports = async (c) => ({ twice: c.params.n * 2 });');
    const idempotencyKey = unique('invoke');
    const first = await call(
      'POST',
      `/functions/${counted}/invoke`,
      { params: { n: 21 } },
      { 'Idempotency-Key': idempotencyKey },
    );
    const again = await call(
      'POST',
      `/functions/${counted}/invoke`,
      { params: { n: 21 } },
      { 'Idempotency-Key': idempotencyKey },
    );
    expect(first.body.data.result).toEqual({ twice: 42 });
    expect(again).toEqual({ status: 200, replayed: 'true', body: first.body });
    expect(await executionsOf(counted)).toBe(1);

    const failing = await deploy('module.exports = async () => { throw new Error("no"); };');
    const failedKey = unique('invoke-failed');
    const failed = await call('POST', `/functions/${failing}/invoke`, {}, { 'Idempotency-Key': failedKey });
    const failedAgain = await call('POST', `/functions/${failing}/invoke`, {}, { 'Idempotency-Key': failedKey });
    expect(failed).toMatchObject({ status: 500, body: { error: { code: 'execution_error' } } });
    expect(failedAgain).toEqual({ status: 500, replayed: 'true', body: failed.body });
    expect(await executionsOf(failing)).toBe(1);
  });

  it('answers 409 in the area shape to the same key with another request, and runs nothing more', async () => {
    const fn = await deploy('module.exports = async () => 1;');
    const idempotencyKey = unique('other');
    await call('POST', `/functions/${fn}/invoke`, { params: { n: 1 } }, { 'Idempotency-Key': idempotencyKey });
    const other = await call(
      'POST',
      `/functions/${fn}/invoke`,
      { params: { n: 2 } },
      { 'Idempotency-Key': idempotencyKey },
    );
    expect(other).toMatchObject({ status: 409, body: { success: false, error: { code: 'conflict' } } });
    expect(await executionsOf(fn)).toBe(1);

    const automationKey = unique('automation');
    const automation = (name: string) => ({
      name,
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      action: { type: 'function', functionId: fn },
    });
    const created = await call('POST', '/automations', automation('a'), { 'Idempotency-Key': automationKey });
    const clashing = await call('POST', '/automations', automation('b'), { 'Idempotency-Key': automationKey });
    expect(created.status).toBe(201);
    expect(clashing).toMatchObject({ status: 409, body: { error: { code: 'CONFLICT' } } });
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const slow = await deploy(
      'module.exports = async () => { const end = Date.now() + 3000; while (Date.now() < end); return 1; };',
    );
    const idempotencyKey = unique('busy');
    const first = call('POST', `/functions/${slow}/invoke`, {}, { 'Idempotency-Key': idempotencyKey });
    const second = call('POST', `/functions/${slow}/invoke`, {}, { 'Idempotency-Key': idempotencyKey });
    const answers = (await Promise.all([first, second])).map((answer) => answer.status).sort();
    expect(answers).toEqual([200, 409]);
    expect(await executionsOf(slow)).toBe(1);
  });

  it('keeps nothing for a request refused as invalid: the fixed request runs under the same key', async () => {
    const idempotencyKey = unique('invalid');
    const refused = await call(
      'POST',
      '/functions',
      { name: '', runtime: 'node18', code: 'x' },
      { 'Idempotency-Key': idempotencyKey },
    );
    expect(refused.status).toBe(400);
    const fixed = { name: unique('fixed'), runtime: 'node18', code: 'module.exports = async () => 1;' };
    expect((await call('POST', '/functions', fixed, { 'Idempotency-Key': idempotencyKey })).status).toBe(201);
  });

  it('scopes keys to the account, forgets them after 24 hours, and refuses a malformed key', async () => {
    const fn = await deploy('module.exports = async () => 1;');
    const idempotencyKey = unique('shared');
    await call('POST', `/functions/${fn}/invoke`, {}, { 'Idempotency-Key': idempotencyKey });
    const other = await issueKey(api.database.orm);
    const otherFn = (
      await call(
        'POST',
        '/functions',
        { name: 'o', runtime: 'node18', code: 'module.exports = async () => 2;' },
        {},
        other.key,
      )
    ).body.data!.id as string;
    const theirs = await call(
      'POST',
      `/functions/${otherFn}/invoke`,
      {},
      { 'Idempotency-Key': idempotencyKey },
      other.key,
    );
    expect(theirs).toMatchObject({ status: 200, replayed: null, body: { data: { result: 2 } } });

    await api.database.orm.em
      .getConnection()
      .execute(`update "idempotent_requests" set "claimed_at" = now() - interval '25 hours' where "key" = ?`, [
        idempotencyKey,
      ]);
    const later = await call('POST', `/functions/${fn}/invoke`, {}, { 'Idempotency-Key': idempotencyKey });
    expect(later).toMatchObject({ status: 200, replayed: null });
    expect(await executionsOf(fn)).toBe(2);

    const malformed = await call('POST', `/functions/${fn}/invoke`, {}, { 'Idempotency-Key': 'a b' });
    expect(malformed).toMatchObject({ status: 400, body: { error: { code: 'invalid_request' } } });
  });

  it('keeps the answer sealed: a result the code read from nowhere else is not in the table in the clear', async () => {
    const marker = `marker-${Date.now()}`;
    const fn = await deploy(`module.exports = async () => ({ value: '${marker}' });`);
    const idempotencyKey = unique('sealed');
    const invoked = await call('POST', `/functions/${fn}/invoke`, {}, { 'Idempotency-Key': idempotencyKey });
    expect(invoked.body.data.result).toEqual({ value: marker });
    const rows = await api.database.orm.em
      .getConnection()
      .execute<{ ciphertext: Buffer }[]>(`select "ciphertext" from "idempotent_requests" where "key" = ?`, [
        idempotencyKey,
      ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.ciphertext.toString('latin1')).not.toContain(marker);
  });
});
