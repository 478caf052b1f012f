import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  body,
  call,
  create,
  deploy,
  echoFn,
  error,
  keyFor,
  priceTrigger,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';
import { until } from '../support/polling.ts';

// The deployment's per-account limits, set low: two automations, two executions not yet ended,
// schedules at most every 10 s and prices read at most every 10 s (the tests' default is 1 s).
beforeAll(() =>
  startAutomationsApi({
    env: {
      NEOFLOW_ACCOUNT_AUTOMATIONS: '2',
      NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: '2',
      NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '10',
      NEOFLOW_SHORTEST_POLL_SECONDS: '10',
    },
  }),
);
afterAll(stopAutomationsApi);

describe('the shortest intervals of triggers', () => {
  it.each([
    ['* * * * * *', 1],
    ['*/5 * * * * *', 5],
    ['0,1,30 * * * * *', 1],
  ])('refuses a schedule %j (every %i s at times) at create and update: 400 INTERVAL_TOO_SHORT', async (cron) => {
    const own = await keyFor();
    const refused = await call('POST', '/automations', body({ trigger: { type: 'schedule', cron } }), own);
    expect(refused).toEqual(error(400, 'INTERVAL_TOO_SHORT', { field: 'trigger.cron', shortestSeconds: 10 }));
    const created = await create({}, own);
    const updated = await call('PATCH', `/automations/${created.id}`, { trigger: { type: 'schedule', cron } }, own);
    expect(updated).toEqual(error(400, 'INTERVAL_TOO_SHORT', { field: 'trigger.cron', shortestSeconds: 10 }));
  });

  it('accepts a schedule every 10 s and one of five fields', async () => {
    const own = await keyFor();
    await create({ trigger: { type: 'schedule', cron: '*/10 * * * * *' } }, own);
    await create({ trigger: { type: 'schedule', cron: '* * * * *' } }, own);
  });

  it('refuses a price read every 9 s, accepts one every 10 s', async () => {
    const own = await keyFor();
    const trigger = (pollInterval: number) => ({ trigger: { ...priceTrigger, pollInterval } });
    const refused = await call('POST', '/automations', body(trigger(9)), own);
    expect(refused).toEqual(error(400, 'INTERVAL_TOO_SHORT', { field: 'trigger.pollInterval', shortestSeconds: 10 }));
    await create(trigger(10), own);
  });
});

describe('automations per account', () => {
  it("refuses an account's third automation with 409 AUTOMATION_LIMIT_REACHED, and creates one again once one is deleted", async () => {
    const own = await keyFor();
    const first = await create({}, own);
    await create({}, own);
    expect(await call('POST', '/automations', body(), own)).toEqual(
      error(409, 'AUTOMATION_LIMIT_REACHED', { limit: 2 }),
    );
    // Another account is not counted with this one.
    await create({}, await keyFor());
    expect((await call('DELETE', `/automations/${first.id}`, undefined, own)).status).toBe(200);
    await create({}, own);
  });

  it('keeps nothing under an Idempotency-Key for a create refused at the limit: the same request creates once one is deleted', async () => {
    const own = await keyFor();
    const first = await create({}, own);
    await create({}, own);
    const sent = body({ name: 'created on retry' });
    const keyedCreate = () =>
      fetch(`${api.url}/v1/automations`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'at-limit' },
        body: JSON.stringify(sent),
      });
    const refused = await keyedCreate();
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('AUTOMATION_LIMIT_REACHED');
    expect((await call('DELETE', `/automations/${first.id}`, undefined, own)).status).toBe(200);
    const retried = await keyedCreate();
    expect(retried.status).toBe(201);
    expect(retried.headers.get('Idempotent-Replayed')).toBeNull();
    const again = await keyedCreate();
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('holds the limit under creates racing for the last places: of 8 sent at once, 2 are created and 6 refused', async () => {
    const own = await keyFor();
    const answers = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/automations', body(), own)));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(2);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused).toEqual(Array.from({ length: 6 }, () => error(409, 'AUTOMATION_LIMIT_REACHED', { limit: 2 })));
    expect((await call('GET', '/automations', undefined, own)).body).toMatchObject({ pagination: { total: 2 } });
  });
});

describe('executions not yet ended per account', () => {
  it('answers 429 execution_queue_full with Retry-After while the account has 2 running, keeps nothing under an Idempotency-Key, and invokes again once they end', async () => {
    const own = await keyFor();
    // Atomics.wait holds the run without using a core.
    const waiting = await deploy(
      'module.exports = async () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000); return 1; };',
      own,
    );
    const invoke = (headers: Record<string, string> = {}) =>
      fetch(`${api.url}/v1/functions/${waiting}/invoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ async: true }),
      });
    for (let i = 0; i < 2; i++) expect((await invoke()).status).toBe(202);
    const refused = await invoke({ 'Idempotency-Key': 'queued-third' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      success: false,
      error: { code: 'execution_queue_full', message: expect.any(String), details: { limit: 2, retryAfter: 5 } },
    });
    // Another account's invoke is not counted with this one's.
    const other = await call('POST', `/functions/${echoFn}/invoke`, { params: { x: 1 } });
    expect(other.status, JSON.stringify(other.body)).toBe(200);

    const accepted = await until(
      () => invoke({ 'Idempotency-Key': 'queued-third' }),
      (answer) => answer.status === 202,
      60_000,
      500,
    );
    expect(accepted.headers.get('idempotent-replayed')).toBeNull();
  }, 90_000);
});
