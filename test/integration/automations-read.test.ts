import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unbudgetedGas } from '../support/automations.ts';
import {
  call,
  create,
  error,
  gas,
  get,
  keyFor,
  missingAutomation,
  priceTrigger,
  startAutomationsApi,
  stopAutomationsApi,
  type Body,
} from '../support/automations-api.ts';

// The automations area over HTTP: listing automations and reading one.
beforeAll(() => startAutomationsApi({ runs: false }));
afterAll(stopAutomationsApi);

describe('GET /v1/automations', () => {
  let own: string;
  const made: Record<string, Body> = {};
  beforeAll(async () => {
    own = await keyFor();
    made.s1 = await create({ name: 's1' }, own);
    made.b1 = await create({ name: 'b1', trigger: { type: 'blockchain', scriptHash: gas } }, own);
    made.p1 = await create({ name: 'p1', trigger: priceTrigger }, own);
    made.s2 = await create({ name: 's2', status: 'active' }, own);
  });
  const list = (query = '') => call('GET', `/automations${query}`, undefined, own);
  const names = (response: { body: Body }) => (response.body.automations as Body[]).map((a) => a.name as string);

  it('lists newest first, default limit 20, items without executionStats', async () => {
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(names(listed)).toEqual(['s2', 'p1', 'b1', 's1']);
    expect(listed.body.pagination).toEqual({ total: 4, limit: 20, offset: 0, hasMore: false });
    expect(listed.body.automations[3]).toEqual(made.s1);
    for (const item of listed.body.automations as Body[]) {
      expect(Object.keys(item).sort()).toEqual([
        'action',
        'createdAt',
        'id',
        'name',
        'network',
        'notify',
        'status',
        'trigger',
        'updatedAt',
      ]);
    }
  });

  it('filters by status and triggerType; total counts the filtered set', async () => {
    const inactive = await list('?status=inactive');
    expect(names(inactive)).toEqual(['p1', 'b1', 's1']);
    expect(inactive.body.pagination).toEqual({ total: 3, limit: 20, offset: 0, hasMore: false });
    expect(names(await list('?status=active'))).toEqual(['s2']);
    expect((await list('?status=error')).body).toEqual({
      automations: [],
      pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
    });
    expect(names(await list('?triggerType=schedule'))).toEqual(['s2', 's1']);
    expect(names(await list('?triggerType=blockchain'))).toEqual(['b1']);
    expect(names(await list('?triggerType=price'))).toEqual(['p1']);
    expect(names(await list('?triggerType=schedule&status=inactive'))).toEqual(['s1']);
    const page = await list('?triggerType=schedule&limit=1');
    expect(page.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
  });

  it('pages with limit and offset', async () => {
    const page = await list('?limit=2&offset=1');
    expect(names(page)).toEqual(['p1', 'b1']);
    expect(page.body.pagination).toEqual({ total: 4, limit: 2, offset: 1, hasMore: true });
    const last = await list('?limit=2&offset=2');
    expect(last.body.pagination).toEqual({ total: 4, limit: 2, offset: 2, hasMore: false });
    const beyond = await list('?offset=10&limit=100');
    expect(beyond.body).toEqual({ automations: [], pagination: { total: 4, limit: 100, offset: 10, hasMore: false } });
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=-1', 'limit'],
    ['?limit=x', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?offset=-1', 'offset'],
    ['?offset=x', 'offset'],
    ['?status=paused', 'status'],
    ['?status=ACTIVE', 'status'],
    ['?triggerType=email', 'triggerType'],
    ['?sort=name', 'sort'],
  ])('rejects %s with 400 INVALID_REQUEST naming %s', async (query, field) => {
    expect(await list(query)).toEqual(error(400, 'INVALID_REQUEST', { field }));
  });
});

describe('GET /v1/automations/{id}', () => {
  it('includes executionStats: an active schedule has a future nextExecution, an inactive one null', async () => {
    const active = await create({ status: 'active' });
    const { status, body: got } = await get(active.id);
    expect(status).toBe(200);
    expect(got).toEqual({
      ...active,
      executionStats: {
        lastExecution: null,
        lastStatus: null,
        successCount: 0,
        failureCount: 0,
        nextExecution: expect.stringMatching(/-01-01T00:00:00\.000Z$/),
      },
      // A contract action sends: what it may spend, with no budget in force.
      gas: unbudgetedGas,
    });
    expect(Date.parse(got.executionStats.nextExecution)).toBeGreaterThan(Date.now());
    const inactive = await create();
    expect((await get(inactive.id)).body.executionStats.nextExecution).toBeNull();
    const price = await create({ trigger: priceTrigger });
    expect((await get(price.id)).body.executionStats.nextExecution).toBeNull();
  });

  it('answers 404 AUTOMATION_NOT_FOUND for an unknown id', async () => {
    expect(await get(missingAutomation)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
    expect(Object.keys((await get('nothing-like-an-id')).body)).toEqual(['error']);
  });
});
