import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unbudgetedGas } from '../support/automations.ts';
import {
  call,
  contractAction,
  create,
  deploy,
  echoFn,
  error,
  gas,
  get,
  idsOf,
  isoMillis,
  missingAutomation,
  otherFn,
  priceTrigger,
  scheduleOf,
  startAutomationsApi,
  stopAutomationsApi,
  yearly,
} from '../support/automations-api.ts';

// The automations area over HTTP: changing, deleting, and what a deleted function does to its automations.
beforeAll(() => startAutomationsApi({ runs: false }));
afterAll(stopAutomationsApi);

describe('PATCH /v1/automations/{id}', () => {
  it('renames, keeping the rest, and returns executionStats', async () => {
    const created = await create({ status: 'active' });
    const renamed = await call('PATCH', `/automations/${created.id}`, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      ...created,
      name: 'renamed',
      updatedAt: expect.stringMatching(isoMillis),
      executionStats: {
        lastExecution: null,
        lastStatus: null,
        successCount: 0,
        failureCount: 0,
        nextExecution: expect.stringMatching(isoMillis),
      },
      // A contract action sends: what it may spend, with no budget in force.
      gas: unbudgetedGas,
    });
    expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect((await get(created.id)).body).toEqual(renamed.body);
  });

  it('pauses and resumes: status inactive pauses the schedule, active resumes it', async () => {
    const created = await create({ status: 'active' });
    const paused = await call('PATCH', `/automations/${created.id}`, { status: 'inactive' });
    expect(paused).toMatchObject({
      status: 200,
      body: { status: 'inactive', executionStats: { nextExecution: null } },
    });
    expect((await scheduleOf(created.id)).state.paused).toBe(true);
    const resumed = await call('PATCH', `/automations/${created.id}`, { status: 'active' });
    expect(resumed).toMatchObject({ status: 200, body: { status: 'active' } });
    expect(resumed.body.executionStats.nextExecution).toMatch(isoMillis);
    expect((await scheduleOf(created.id)).state.paused).toBe(false);
  });

  it('serializes concurrent PATCHes of one automation, round after round: all 200, and Temporal ends as the stored trigger says', async () => {
    const created = await create({ status: 'active' });
    const blockchain = { type: 'blockchain', scriptHash: gas };
    // Applies of racing updates interleave (one removing the schedule another just wrote) in some
    // rounds only: several rounds, each checked.
    for (let round = 0; round < 6; round++) {
      const patches = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          call('PATCH', `/automations/${created.id}`, { trigger: (index + round) % 2 ? blockchain : { ...yearly } }),
        ),
      );
      expect(patches.map(({ status }) => status)).toEqual(Array(8).fill(200));
      const stored = (await get(created.id)).body;
      const schedule = await scheduleOf(created.id).then(
        () => 'schedule',
        () => 'none',
      );
      expect([round, stored.trigger.type, schedule]).toEqual(
        stored.trigger.type === 'schedule' ? [round, 'schedule', 'schedule'] : [round, 'blockchain', 'none'],
      );
    }
  });

  it('changes the trigger: schedule to price removes the schedule, and back to schedule restores one', async () => {
    const created = await create();
    const trigger = { ...priceTrigger, condition: 'below', value: '3', pollInterval: 60 };
    const toPrice = await call('PATCH', `/automations/${created.id}`, { trigger });
    expect(toPrice).toMatchObject({ status: 200, body: { trigger, executionStats: { nextExecution: null } } });
    await expect(scheduleOf(created.id)).rejects.toThrow();
    const prices = await call('GET', '/automations?triggerType=price&limit=100');
    expect(idsOf(prices.body.automations)).toContain(created.id);

    const back = await call('PATCH', `/automations/${created.id}`, {
      status: 'active',
      trigger: { type: 'schedule', cron: '0 12 1 1 *', timezone: 'UTC' },
    });
    expect(back).toMatchObject({ status: 200, body: { status: 'active', trigger: { cron: '0 12 1 1 *' } } });
    expect(back.body.executionStats.nextExecution).toMatch(/-01-01T12:00:00\.000Z$/);
    expect((await scheduleOf(created.id)).state.paused).toBe(false);

    const toChain = await call('PATCH', `/automations/${created.id}`, {
      status: 'inactive',
      trigger: { type: 'blockchain', scriptHash: gas, event: 'Transfer' },
    });
    expect(toChain).toMatchObject({ status: 200, body: { trigger: { type: 'blockchain' } } });
    await expect(scheduleOf(created.id)).rejects.toThrow();
  });

  it('changes the action, checking a new function exists', async () => {
    const created = await create();
    const action = { type: 'function', functionId: echoFn, parameters: { a: 1 } };
    const changed = await call('PATCH', `/automations/${created.id}`, { action });
    expect(changed).toMatchObject({ status: 200, body: { action } });
    const toContract = await call('PATCH', `/automations/${created.id}`, { action: contractAction });
    expect(toContract).toMatchObject({ status: 200, body: { action: contractAction } });
    const foreign = await call('PATCH', `/automations/${created.id}`, {
      action: { type: 'function', functionId: otherFn },
    });
    expect(foreign).toEqual(error(404, 'FUNCTION_NOT_FOUND', { field: 'action.functionId' }));
    expect((await get(created.id)).body.action).toEqual({ ...contractAction, signer: expect.stringMatching(/^sgn_/) });
  });

  it.each([
    ['an empty body', {}, undefined],
    ['status error', { status: 'error' }, 'status'],
    ['an unknown status', { status: 'paused' }, 'status'],
    ['an empty name', { name: '' }, 'name'],
    ['a name of 129 characters', { name: 'n'.repeat(129) }, 'name'],
    ['an unknown field', { createdAt: '2026-01-01T00:00:00.000Z' }, 'createdAt'],
    ['an unknown nested field', { trigger: { ...yearly, every: '5m' } }, 'trigger.every'],
    ['a bad price value', { trigger: { ...priceTrigger, value: '1e5' } }, 'trigger.value'],
    ['a time zone Temporal refuses', { trigger: { ...yearly, timezone: 'PST' } }, 'trigger.timezone'],
    ['a time zone IANA dropped', { trigger: { ...yearly, timezone: 'US/Pacific-New' } }, 'trigger.timezone'],
    ['a bad arg', { action: { ...contractAction, args: [{ type: 'Integer', value: 'x' }] } }, 'action.args.0.value'],
  ])('rejects %s with 400 INVALID_REQUEST and changes nothing', async (_label, patch, field) => {
    const created = await create();
    const response = await call('PATCH', `/automations/${created.id}`, patch);
    expect(response).toEqual(error(400, 'INVALID_REQUEST', field === undefined ? {} : { field }));
    expect((await get(created.id)).body).toMatchObject(created);
  });

  it('answers INVALID_SCRIPT_HASH and 404 AUTOMATION_NOT_FOUND', async () => {
    const created = await create();
    const hash = await call('PATCH', `/automations/${created.id}`, {
      trigger: { type: 'blockchain', scriptHash: '0x1' },
    });
    expect(hash).toEqual(error(400, 'INVALID_SCRIPT_HASH', { field: 'trigger.scriptHash' }));
    expect(await call('PATCH', `/automations/${missingAutomation}`, { name: 'x' })).toEqual(
      error(404, 'AUTOMATION_NOT_FOUND'),
    );
  });
});

describe('DELETE /v1/automations/{id}', () => {
  it('deletes for good: 200 {success, message}, then 404 everywhere and no Temporal schedule', async () => {
    const created = await create({ status: 'active' });
    await scheduleOf(created.id);
    const deleted = await call('DELETE', `/automations/${created.id}`);
    expect(deleted).toEqual({ status: 200, body: { success: true, message: expect.any(String) } });
    expect(await get(created.id)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
    await expect(scheduleOf(created.id)).rejects.toThrow();
    expect(await call('DELETE', `/automations/${created.id}`)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
    expect(await call('GET', `/automations/${created.id}/runs`)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
    expect(await call('POST', `/automations/${created.id}/trigger`)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
    const listed = await call('GET', '/automations?limit=100');
    expect(idsOf(listed.body.automations)).not.toContain(created.id);
  });

  it('deletes price and blockchain automations too', async () => {
    for (const trigger of [priceTrigger, { type: 'blockchain', scriptHash: gas }]) {
      const created = await create({ trigger });
      expect((await call('DELETE', `/automations/${created.id}`)).status).toBe(200);
      expect((await get(created.id)).status).toBe(404);
    }
  });
});

describe('a deleted function', () => {
  it('moves its automations to error with details; re-activating answers 404 FUNCTION_NOT_FOUND', async () => {
    const functionId = await deploy('module.exports = async () => "soon gone";');
    const active = await create({ status: 'active', action: { type: 'function', functionId } });
    const inactive = await create({ action: { type: 'function', functionId } });
    const untouched = await create({ status: 'active', action: { type: 'function', functionId: echoFn } });
    expect((await call('DELETE', `/functions/${functionId}`)).status).toBe(200);

    for (const automation of [active, inactive]) {
      const { body: got } = await get(automation.id);
      expect(got).toMatchObject({
        status: 'error',
        details: { reason: 'function_deleted', message: expect.any(String) },
        executionStats: { nextExecution: null },
      });
      expect((await scheduleOf(automation.id)).state.paused).toBe(true);
    }
    expect((await get(untouched.id)).body.status).toBe('active');
    const errored = await call('GET', '/automations?status=error&limit=100');
    expect(idsOf(errored.body.automations).sort()).toEqual([active.id, inactive.id].sort());
    expect(errored.body.automations[0].details).toMatchObject({ reason: 'function_deleted' });

    const reactivated = await call('PATCH', `/automations/${active.id}`, { status: 'active' });
    expect(reactivated).toEqual(error(404, 'FUNCTION_NOT_FOUND', { field: 'action.functionId' }));
    expect((await get(active.id)).body.status).toBe('error');

    const repaired = await call('PATCH', `/automations/${active.id}`, {
      status: 'active',
      action: { type: 'function', functionId: echoFn },
    });
    expect(repaired).toMatchObject({ status: 200, body: { status: 'active' } });
    expect(repaired.body).not.toHaveProperty('details');
  });
});
