import { WorkflowNotFoundError } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallet } from '@cityofzion/neon-js';
import type { TypedSearchAttributes } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { createKey } from '../../src/auth/keys.service.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startPriceServer } from '../support/price-server.ts';
import { rawHistory, startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
/** Account A: every scope. */
let key: string;
let accountName: string;
/** Account B: every scope, nothing shared with A. */
let otherKey: string;
/** A's functions: one returns its params, one throws; and one of B's. */
let echoFn: string;
let failFn: string;
let otherFn: string;

beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  accountName = uniqueAccountName('auto-a');
  key = await keyFor(['*'], accountName);
  otherKey = await keyFor();
  echoFn = await deploy('module.exports = async (context) => context.params;');
  failFn = await deploy("module.exports = async () => { throw new TypeError('boom'); };");
  otherFn = await deploy('module.exports = async () => 1;', otherKey);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

/**
 * A key of `account` (a fresh one by default) with a rate far above what this file sends, so that
 * the rate limiter (tested on its own) never answers for the area under test.
 */
async function keyFor(scopes: Scope[] = ['*'], account = uniqueAccountName('auto')) {
  const rate = { requests: 100_000, windowSeconds: 1 };
  return (await createKey(api.database.orm.em.fork(), testMasters, account, scopes, { rate })).key;
}

// The automations area answers bare bodies: read them loosely.
type Body = any;

/** One call under /v1 with `Authorization: Bearer`; `apiKey` null sends no key at all. */
async function call(method: string, path: string, body?: unknown, apiKey: string | null = key) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (apiKey !== null) headers.Authorization = `Bearer ${apiKey}`;
  const response = await fetch(`${api.url}/v1${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Body };
}

/** A body sent as is, with its own content type. */
async function callRaw(method: string, path: string, raw: string, contentType = 'application/json') {
  const response = await fetch(`${api.url}/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
    body: raw,
  });
  return { status: response.status, body: (await response.json()) as Body };
}

let counter = 0;
async function deploy(code: string, apiKey = key): Promise<string> {
  const created = await call('POST', '/functions', { name: `auto-api-${++counter}`, code, runtime: 'node18' }, apiKey);
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';
const address = new wallet.Account().address;
const yearly = { type: 'schedule', cron: '@yearly' };
const contractAction = { type: 'contract', scriptHash: gas, operation: 'symbol', args: [] };
const priceTrigger = { type: 'price', asset: 'NEO', condition: 'above', value: '12.5', currency: 'USD' };
const missingAutomation = 'auto_doesnotexist0000000000';

/** A valid create body: inactive, yearly, a read-only contract call; `overrides` replace fields. */
const body = (overrides: Record<string, unknown> = {}) => ({
  name: `automation ${++counter}`,
  status: 'inactive',
  trigger: yearly,
  action: contractAction,
  ...overrides,
});

async function create(overrides: Record<string, unknown> = {}, apiKey = key): Promise<Body> {
  const created = await call('POST', '/automations', body(overrides), apiKey);
  expect(created.status).toBe(201);
  return created.body;
}

const idsOf = (items: { id: string }[]) => items.map((item) => item.id);

const get = async (id: string, apiKey = key) => call('GET', `/automations/${id}`, undefined, apiKey);

const scheduleOf = (id: string) => api.services.temporal.client.schedule.getHandle(id).describe();

async function runsOf(id: string, query = ''): Promise<Body> {
  const listed = await call('GET', `/automations/${id}/runs?limit=100${query}`);
  expect(listed.status).toBe(200);
  return listed.body.runs;
}

/** The runs of `id` once none is running any more. */
const settledRuns = (id: string, count: number): Promise<Body> =>
  until<Body[]>(
    () => runsOf(id),
    (runs) => runs.length >= count && runs.every((run) => run.status !== 'running'),
  );

const error = (status: number, code: string, details: Record<string, unknown> = {}) => ({
  status,
  body: { error: { code, message: expect.any(String), details } },
});

describe('POST /v1/automations', () => {
  it('creates an automation: 201 with id, status active by default, ISO timestamps, no executionStats', async () => {
    const created = await call('POST', '/automations', {
      name: 'new year report',
      trigger: { type: 'schedule', cron: '0 3 1 1 *' },
      action: { type: 'function', functionId: echoFn },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^auto_[A-Za-z0-9_-]{16,}$/),
      name: 'new year report',
      status: 'active',
      trigger: { type: 'schedule', cron: '0 3 1 1 *' },
      action: { type: 'function', functionId: echoFn, parameters: {} },
      createdAt: expect.stringMatching(isoMillis),
      updatedAt: expect.stringMatching(isoMillis),
    });
    expect((await get(created.body.id)).body).toMatchObject({
      ...created.body,
      executionStats: { nextExecution: expect.stringMatching(/-01-01T03:00:00\.000Z$/) },
    });
    const schedule = await scheduleOf(created.body.id);
    expect(schedule.state.paused).toBe(false);
  });

  it('gives every automation its own unguessable id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await create()).id);
    expect(ids.size).toBe(3);
  });

  it('accepts a name of 128 characters', async () => {
    expect((await create({ name: 'n'.repeat(128) })).name).toHaveLength(128);
  });

  it.each([
    '*/15 * * * *',
    '0 9 * * MON-FRI',
    '0 0 1,15 * *',
    '30 0 12 * * *',
    '*/10 * * * * *',
    '@hourly',
    '@daily',
    '@weekly',
    '@monthly',
    '@yearly',
  ])('accepts the cron %j', async (cron) => {
    const created = await create({ trigger: { type: 'schedule', cron } });
    expect(created.trigger).toEqual({ type: 'schedule', cron });
    expect((await scheduleOf(created.id)).state.paused).toBe(true);
  });

  it('runs a schedule in trigger.timezone: midnight of 1 January in Tokyo is 15:00 UTC the day before', async () => {
    const trigger = { type: 'schedule', cron: '0 0 1 1 *', timezone: 'Asia/Tokyo' };
    const created = await create({ status: 'active', trigger });
    expect(created.trigger).toEqual(trigger);
    const { body: got } = await get(created.id);
    expect(got.executionStats.nextExecution).toMatch(/-12-31T15:00:00\.000Z$/);
    expect(Date.parse(got.executionStats.nextExecution)).toBeGreaterThan(Date.now());
  });

  it.each(['US/Pacific', 'Etc/GMT+5', 'GB-Eire', 'Asia/Calcutta'])(
    'accepts the alias %j, which Temporal’s server loads too',
    async (timezone) => {
      const created = await create({ trigger: { ...yearly, timezone } });
      expect((await scheduleOf(created.id)).spec.timezone).toBe(timezone);
    },
  );

  it('refuses a time zone Temporal’s server refuses, as the server itself would', async () => {
    const refusedByServer = api.services.temporal.client.schedule.create({
      scheduleId: `tz-probe-${++counter}`,
      spec: { cronExpressions: ['@yearly'], timezone: 'PST' },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'tz-probe', args: [] },
      state: { paused: true },
    });
    await expect(refusedByServer).rejects.toThrow();
    const created = await call('POST', '/automations', body({ trigger: { ...yearly, timezone: 'PST' } }));
    expect([created.status, created.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  it('makes one Temporal Schedule per schedule automation: skip overlaps, a 60 s catch-up window, labelled fires', async () => {
    const created = await create({ status: 'active', trigger: { type: 'schedule', cron: '0 0 1 1 *' } });
    const schedule = await scheduleOf(created.id);
    expect(schedule.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 60_000 });
    expect(schedule.action).toMatchObject({
      workflowType: 'scheduledFire',
      workflowId: created.id,
      args: [created.id],
    });
    const labels = Object.fromEntries(
      (schedule.action as { typedSearchAttributes: TypedSearchAttributes }).typedSearchAttributes
        .getAll()
        .map(({ key, value }) => [key.name, value]),
    );
    expect(labels).toEqual({
      NeoflowAccountId: expect.stringMatching(/^acct_/),
      NeoflowAutomationId: created.id,
      NeoflowTrigger: 'schedule',
    });
  });

  it('creates a blockchain trigger with event and filter (active: no nextExecution)', async () => {
    const trigger = {
      type: 'blockchain',
      scriptHash: gas,
      event: 'Transfer',
      filter: { from: address, to: '0x0000000000000000000000000000000000000001', amount: '5' },
    };
    const created = await create({ status: 'active', trigger, action: { type: 'function', functionId: echoFn } });
    expect(created).toMatchObject({ status: 'active', trigger });
    expect((await get(created.id)).body.executionStats).toEqual({
      lastExecution: null,
      lastStatus: null,
      successCount: 0,
      failureCount: 0,
      nextExecution: null,
    });
    const upperCase = { type: 'blockchain', scriptHash: `0x${gas.slice(2).toUpperCase()}` };
    expect((await create({ trigger: upperCase })).trigger).toEqual(upperCase);
  });

  it.each([
    priceTrigger,
    { ...priceTrigger, condition: 'below', value: '0.000001', source: { preset: 'binance' }, pollInterval: 30 },
    { ...priceTrigger, asset: 'GAS', value: '100', source: { preset: 'coingecko' }, maxAge: 120 },
    {
      ...priceTrigger,
      currency: 'EUR',
      source: { url: 'https://prices.example.com/{asset}?vs={currency}', path: 'data.price', timestampPath: 'data.ts' },
      pollInterval: 1,
      maxAge: 86_400,
    },
    { ...priceTrigger, source: { url: 'http://127.0.0.1:9/price', path: 'price' } },
  ])('creates the price trigger %j', async (trigger) => {
    const created = await create({ trigger });
    expect(created.trigger).toEqual(trigger);
    expect((await get(created.id)).body.executionStats.nextExecution).toBeNull();
  });

  it('creates a function action with parameters', async () => {
    const action = { type: 'function', functionId: echoFn, parameters: { threshold: 5, nested: { list: [1, 'a'] } } };
    expect((await create({ action })).action).toEqual(action);
  });

  it('creates a contract action with typed args: Hash160 as address and 0x, Integer, Array and the rest', async () => {
    const holder = new wallet.Account();
    const action = {
      type: 'contract',
      scriptHash: gas,
      operation: 'transfer',
      args: [
        { type: 'Hash160', value: holder.address },
        { type: 'Hash160', value: '0x' + 'ab'.repeat(20) },
        { type: 'Integer', value: '100000000' },
        { type: 'Integer', value: '-5' },
        { type: 'String', value: 'memo' },
        { type: 'Boolean', value: true },
        { type: 'ByteArray', value: 'AQID' },
        { type: 'Hash256', value: '0x' + '0f'.repeat(32) },
        { type: 'PublicKey', value: holder.publicKey },
        {
          type: 'Array',
          value: [
            { type: 'Integer', value: '1' },
            { type: 'Array', value: [{ type: 'Hash160', value: holder.address }] },
          ],
        },
        { type: 'Any', value: null },
      ],
    };
    expect((await create({ action })).action).toEqual(action);
    expect((await create({ action: { type: 'contract', scriptHash: gas, operation: 'symbol' } })).action).toEqual({
      type: 'contract',
      scriptHash: gas,
      operation: 'symbol',
      args: [],
    });
  });
});

describe('validation', () => {
  it.each([
    '* * * *',
    '* * * * * * *',
    '60 * * * *',
    '0 24 * * *',
    '0 0 0 * *',
    '0 0 32 * *',
    '0 0 * 13 *',
    '0 0 * * 8',
    '*/0 * * * *',
    '5-1 * * * *',
    'a b c d e',
    'garbage',
    '@every 5m',
    '@reboot',
    '',
    '   ',
  ])('rejects the cron %j with 400 INVALID_CRON on trigger.cron, on create and on update', async (cron) => {
    const trigger = { type: 'schedule', cron };
    const created = await call('POST', '/automations', body({ trigger }));
    expect(created).toEqual(error(400, 'INVALID_CRON', { field: 'trigger.cron' }));
    const { id } = await create();
    expect(await call('PATCH', `/automations/${id}`, { trigger })).toEqual(
      error(400, 'INVALID_CRON', { field: 'trigger.cron' }),
    );
  });

  it.each(['0x1234', gas.slice(2), '0x' + 'g'.repeat(40), gas + 'ab', ` ${gas}`])(
    'rejects the script hash %j with 400 INVALID_SCRIPT_HASH on trigger and action',
    async (scriptHash) => {
      const onTrigger = await call('POST', '/automations', body({ trigger: { type: 'blockchain', scriptHash } }));
      expect(onTrigger).toEqual(error(400, 'INVALID_SCRIPT_HASH', { field: 'trigger.scriptHash' }));
      const onAction = await call('POST', '/automations', body({ action: { ...contractAction, scriptHash } }));
      expect(onAction).toEqual(error(400, 'INVALID_SCRIPT_HASH', { field: 'action.scriptHash' }));
    },
  );

  it("answers 404 FUNCTION_NOT_FOUND for a missing function and for another account's, alike", async () => {
    const missing = await call(
      'POST',
      '/automations',
      body({ action: { type: 'function', functionId: 'func_doesnotexist0000000000' } }),
    );
    expect(missing).toEqual(error(404, 'FUNCTION_NOT_FOUND', { field: 'action.functionId' }));
    const foreign = await call('POST', '/automations', body({ action: { type: 'function', functionId: otherFn } }));
    expect(foreign).toEqual(error(404, 'FUNCTION_NOT_FOUND', { field: 'action.functionId' }));
    expect(foreign.body.error.message).toBe(missing.body.error.message.replace('func_doesnotexist0000000000', otherFn));
  });

  const without = (field: string) => {
    const valid: Record<string, unknown> = body();
    delete valid[field];
    return valid;
  };
  const args = (...items: unknown[]) => body({ action: { ...contractAction, args: items } });
  const blockchain = (extra: Record<string, unknown>) =>
    body({ trigger: { type: 'blockchain', scriptHash: gas, ...extra } });

  it.each([
    ['missing name', without('name'), 'name'],
    ['missing trigger', without('trigger'), 'trigger'],
    ['missing action', without('action'), 'action'],
    ['empty name', body({ name: '' }), 'name'],
    ['name of 129 characters', body({ name: 'n'.repeat(129) }), 'name'],
    ['name not a string', body({ name: 42 }), 'name'],
    ['unknown field id', body({ id: 'auto_mine0000000000000000' }), 'id'],
    ['unknown field createdAt', body({ createdAt: '2026-01-01T00:00:00.000Z' }), 'createdAt'],
    ['unknown field executionStats', body({ executionStats: {} }), 'executionStats'],
    ['unknown field account', body({ account: 'acct_other' }), 'account'],
    ['unknown nested trigger.foo', body({ trigger: { ...yearly, foo: 1 } }), 'trigger.foo'],
    ['unknown nested action.foo', body({ action: { ...contractAction, foo: 1 } }), 'action.foo'],
    [
      'a preset source with more fields',
      body({ trigger: { ...priceTrigger, source: { preset: 'binance', x: 1 } } }),
      'trigger.source.x',
    ],
    ['status error on create', body({ status: 'error' }), 'status'],
    ['unknown status', body({ status: 'paused' }), 'status'],
    ['unknown trigger type', body({ trigger: { type: 'webhook' } }), 'trigger.type'],
    ['trigger without type', body({ trigger: { cron: '@yearly' } }), 'trigger.type'],
    ['trigger not an object', body({ trigger: 'daily' }), 'trigger'],
    ['unknown action type', body({ action: { type: 'webhook', url: 'https://example.com' } }), 'action.type'],
    ['schedule without cron', body({ trigger: { type: 'schedule' } }), 'trigger.cron'],
    ['cron not a string', body({ trigger: { type: 'schedule', cron: 5 } }), 'trigger.cron'],
    ['unknown timezone', body({ trigger: { ...yearly, timezone: 'Mars/Olympus' } }), 'trigger.timezone'],
    ['timezone in the wrong case', body({ trigger: { ...yearly, timezone: 'europe/berlin' } }), 'trigger.timezone'],
    ['timezone as an offset', body({ trigger: { ...yearly, timezone: '+02:00' } }), 'trigger.timezone'],
    ['timezone Intl knows, Temporal not (PST)', body({ trigger: { ...yearly, timezone: 'PST' } }), 'trigger.timezone'],
    [
      'timezone dropped from IANA (US/Pacific-New)',
      body({ trigger: { ...yearly, timezone: 'US/Pacific-New' } }),
      'trigger.timezone',
    ],
    ['blockchain without scriptHash', body({ trigger: { type: 'blockchain' } }), 'trigger.scriptHash'],
    ['empty event', blockchain({ event: '' }), 'trigger.event'],
    ['filter not an object', blockchain({ filter: 'from' }), 'trigger.filter'],
    ['filter value an object', blockchain({ filter: { from: { eq: 1 } } }), 'trigger.filter.from'],
    ['price condition', body({ trigger: { ...priceTrigger, condition: 'equals' } }), 'trigger.condition'],
    ['price value 1e5', body({ trigger: { ...priceTrigger, value: '1e5' } }), 'trigger.value'],
    ['price value abc', body({ trigger: { ...priceTrigger, value: 'abc' } }), 'trigger.value'],
    ['price value empty', body({ trigger: { ...priceTrigger, value: '' } }), 'trigger.value'],
    ['price value a number', body({ trigger: { ...priceTrigger, value: 12.5 } }), 'trigger.value'],
    ['price value 1.', body({ trigger: { ...priceTrigger, value: '1.' } }), 'trigger.value'],
    ['lower-case asset', body({ trigger: { ...priceTrigger, asset: 'neo' } }), 'trigger.asset'],
    ['lower-case currency', body({ trigger: { ...priceTrigger, currency: 'usd' } }), 'trigger.currency'],
    ['missing currency', body({ trigger: { ...priceTrigger, currency: undefined } }), 'trigger.currency'],
    ['pollInterval 0', body({ trigger: { ...priceTrigger, pollInterval: 0 } }), 'trigger.pollInterval'],
    ['pollInterval 1.5', body({ trigger: { ...priceTrigger, pollInterval: 1.5 } }), 'trigger.pollInterval'],
    ['pollInterval as text', body({ trigger: { ...priceTrigger, pollInterval: '30' } }), 'trigger.pollInterval'],
    ['maxAge over a day', body({ trigger: { ...priceTrigger, maxAge: 86_401 } }), 'trigger.maxAge'],
    ['unknown source preset', body({ trigger: { ...priceTrigger, source: { preset: 'kraken' } } }), 'trigger.source'],
    [
      'source URL not http',
      body({ trigger: { ...priceTrigger, source: { url: 'ftp://example.com/p', path: 'p' } } }),
      'trigger.source.url',
    ],
    ['function action without functionId', body({ action: { type: 'function' } }), 'action.functionId'],
    [
      'parameters not an object',
      body({ action: { type: 'function', functionId: 'func_placeholder00000000000', parameters: [] } }),
      'action.parameters',
    ],
    ['contract action without operation', body({ action: { type: 'contract', scriptHash: gas } }), 'action.operation'],
    ['empty operation', body({ action: { ...contractAction, operation: '' } }), 'action.operation'],
    ['args not an array', body({ action: { ...contractAction, args: 'x' } }), 'action.args'],
    ['more than 16 args', args(...Array<unknown>(17).fill({ type: 'Any', value: null })), 'action.args'],
    ['arg not an object', args('nope'), 'action.args.0'],
    ['unknown arg type', args({ type: 'Uint', value: '1' }), 'action.args.0.type'],
    ['unknown arg field', args({ type: 'String', value: 'a', name: 'memo' }), 'action.args.0.name'],
    ['Integer with a fraction', args({ type: 'Integer', value: '1.5' }), 'action.args.0.value'],
    ['Integer as a number', args({ type: 'Integer', value: 5 }), 'action.args.0.value'],
    ['Integer over 256 bits', args({ type: 'Integer', value: (2n ** 255n).toString() }), 'action.args.0.value'],
    ['Hash160 neither address nor hash', args({ type: 'Hash160', value: 'NotAnAddress' }), 'action.args.0.value'],
    [
      'second arg bad',
      args({ type: 'Integer', value: '1' }, { type: 'Hash160', value: '0x12' }),
      'action.args.1.value',
    ],
    [
      'bad arg inside an Array',
      args({
        type: 'Array',
        value: [
          { type: 'Integer', value: '1' },
          { type: 'Boolean', value: 'yes' },
        ],
      }),
      'action.args.0.value.1.value',
    ],
    ['Any with a value', args({ type: 'Any', value: 'x' }), 'action.args.0.value'],
    ['ByteArray not base64', args({ type: 'ByteArray', value: 'not base64!' }), 'action.args.0.value'],
  ])('rejects %s with 400 INVALID_REQUEST naming details.field', async (_label, invalid, field) => {
    const response = await call('POST', '/automations', invalid);
    expect(response).toEqual(error(400, 'INVALID_REQUEST', { field }));
  });

  it('names the unknown nested field of a source object', async () => {
    const source = { url: 'https://example.com/p', path: 'p', extra: 1 };
    const response = await call('POST', '/automations', body({ trigger: { ...priceTrigger, source } }));
    expect(response).toEqual(error(400, 'INVALID_REQUEST', { field: 'trigger.source.extra' }));
  });

  it('answers a missing field with "is required"', async () => {
    const response = await call('POST', '/automations', without('trigger'));
    expect(response.body.error.message).toBe('"trigger" is required.');
  });

  it.each([
    ['not JSON', '{"name": ', 'application/json'],
    ['a JSON array', '[1, 2]', 'application/json'],
    ['JSON null', 'null', 'application/json'],
    ['a JSON string', '"automation"', 'application/json'],
    ['another content type', 'name=x', 'application/x-www-form-urlencoded'],
  ])('rejects a body that is %s with 400 INVALID_REQUEST', async (_label, raw, type) => {
    expect(await callRaw('POST', '/automations', raw, type)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST', message: expect.any(String) } },
    });
    const { id } = await create();
    expect(await callRaw('PATCH', `/automations/${id}`, raw, type)).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST' } },
    });
  });

  it('rejects a create without a body', async () => {
    expect(await call('POST', '/automations')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_REQUEST' } },
    });
  });

  it('stores nothing when a create fails', async () => {
    const own = await keyFor();
    await call('POST', '/automations', body({ trigger: { type: 'schedule', cron: 'nope' } }), own);
    await call('POST', '/automations', body({ action: { type: 'function', functionId: echoFn } }), own);
    expect((await call('GET', '/automations', undefined, own)).body.pagination.total).toBe(0);
  });
});

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
      expect(Object.keys(item).sort()).toEqual(['action', 'createdAt', 'id', 'name', 'status', 'trigger', 'updatedAt']);
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
    ['?triggerType=webhook', 'triggerType'],
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

  it('serializes concurrent PATCHes of one automation: all 200, and Temporal ends as the stored trigger says', async () => {
    const created = await create({ status: 'active' });
    const blockchain = { type: 'blockchain', scriptHash: gas };
    const patches = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call('PATCH', `/automations/${created.id}`, { trigger: index % 2 ? blockchain : { ...yearly } }),
      ),
    );
    expect(patches.map(({ status }) => status)).toEqual(Array(8).fill(200));
    const stored = (await get(created.id)).body;
    const schedule = await scheduleOf(created.id).then(
      () => 'schedule',
      () => 'none',
    );
    expect([stored.trigger.type, schedule]).toEqual(
      stored.trigger.type === 'schedule' ? ['schedule', 'schedule'] : ['blockchain', 'none'],
    );
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
    expect((await get(created.id)).body.action).toEqual(contractAction);
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

describe('methods', () => {
  it('answers a wrong method on a known path with 405 and Allow', async () => {
    const { id } = await create();
    const put = await fetch(`${api.url}/v1/automations/${id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(put.status).toBe(405);
    expect(put.headers.get('Allow')).toMatch(/PATCH/);
    expect((await call('DELETE', '/automations')).status).toBe(405);
    expect((await call('GET', `/automations/${id}/trigger`)).status).toBe(405);
  });
});

describe('scopes and authentication', () => {
  it('lets an automations:read key read but not write: 403 FORBIDDEN', async () => {
    const automation = await create();
    const reader = await keyFor(['automations:read'], accountName);
    expect((await call('GET', '/automations', undefined, reader)).status).toBe(200);
    expect((await call('GET', `/automations/${automation.id}`, undefined, reader)).status).toBe(200);
    expect((await call('GET', `/automations/${automation.id}/runs`, undefined, reader)).status).toBe(200);
    const forbidden = error(403, 'FORBIDDEN', { requiredScope: 'automations:write' });
    expect(await call('POST', '/automations', body(), reader)).toEqual(forbidden);
    expect(await call('PATCH', `/automations/${automation.id}`, { name: 'x' }, reader)).toEqual(forbidden);
    expect(await call('DELETE', `/automations/${automation.id}`, undefined, reader)).toEqual(forbidden);
    expect(await call('POST', `/automations/${automation.id}/trigger`, undefined, reader)).toEqual(forbidden);
    expect(await call('POST', `/automations/${automation.id}/runs/run_x/retry`, undefined, reader)).toEqual(forbidden);
    expect((await get(automation.id)).body).toMatchObject(automation);
    expect(await runsOf(automation.id)).toEqual([]);
  });

  it('needs automations:read to read', async () => {
    const writer = await keyFor(['automations:write'], accountName);
    expect((await call('POST', '/automations', body(), writer)).status).toBe(201);
    const forbidden = error(403, 'FORBIDDEN', { requiredScope: 'automations:read' });
    expect(await call('GET', '/automations', undefined, writer)).toEqual(forbidden);
    const functionsOnly = await keyFor(['functions:read'], accountName);
    expect(await call('GET', '/automations', undefined, functionsOnly)).toEqual(forbidden);
  });

  it('answers 401 UNAUTHORIZED without a valid key, on every endpoint', async () => {
    const { id } = await create();
    const endpoints: [string, string, unknown?][] = [
      ['GET', '/automations'],
      ['POST', '/automations', body()],
      ['GET', `/automations/${id}`],
      ['PATCH', `/automations/${id}`, { name: 'x' }],
      ['DELETE', `/automations/${id}`],
      ['POST', `/automations/${id}/trigger`],
      ['GET', `/automations/${id}/runs`],
      ['POST', `/automations/${id}/runs/run_x/retry`],
    ];
    for (const [method, path, payload] of endpoints) {
      expect(await call(method, path, payload, null)).toEqual(error(401, 'UNAUTHORIZED'));
      expect(await call(method, path, payload, 'nf_notakey')).toEqual(error(401, 'UNAUTHORIZED'));
    }
    expect((await get(id)).body).toMatchObject({ name: expect.any(String), status: 'inactive' });
  });

  it('accepts X-API-Key as well as Bearer', async () => {
    const response = await fetch(`${api.url}/v1/automations`, { headers: { 'X-API-Key': key } });
    expect(response.status).toBe(200);
  });
});

describe('account isolation', () => {
  it("answers another account's automation exactly like a missing one, on every endpoint", async () => {
    const mine = await create({ action: { type: 'function', functionId: failFn } });
    const fired = await call('POST', `/automations/${mine.id}/trigger`);
    const [failed] = await settledRuns(mine.id, 1);
    expect(failed.status).toBe('failure');
    const before = await get(mine.id);

    const endpoints: [string, string, unknown?][] = [
      ['GET', '/automations/{id}'],
      ['PATCH', '/automations/{id}', { name: 'stolen', status: 'active' }],
      ['DELETE', '/automations/{id}'],
      ['POST', '/automations/{id}/trigger'],
      ['GET', '/automations/{id}/runs'],
      ['POST', `/automations/{id}/runs/${fired.body.run.id as string}/retry`],
    ];
    for (const [method, path, payload] of endpoints) {
      const foreign = await call(method, path.replace('{id}', mine.id), payload, otherKey);
      const missing = await call(method, path.replace('{id}', missingAutomation), payload, otherKey);
      expect(foreign).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
      expect(foreign).toEqual(missing);
    }
    const listed = await call('GET', '/automations?limit=100', undefined, otherKey);
    expect(listed.body).toEqual({ automations: [], pagination: { total: 0, limit: 100, offset: 0, hasMore: false } });

    expect(await get(mine.id)).toEqual(before);
    expect(await runsOf(mine.id)).toHaveLength(1);
  });
});

describe('runs: manual trigger, history and retry', () => {
  it('fires a function automation manually while inactive: a run that succeeds with its execution', async () => {
    const parameters = { greeting: 'hi' };
    const automation = await create({ action: { type: 'function', functionId: echoFn, parameters } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired).toEqual({
      status: 202,
      body: {
        run: {
          id: expect.stringMatching(/^run_[A-Za-z0-9_-]{16,}$/),
          status: 'running',
          startedAt: expect.stringMatching(isoMillis),
        },
      },
    });
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toEqual({
      id: fired.body.run.id,
      status: 'success',
      startedAt: fired.body.run.startedAt,
      completedAt: expect.stringMatching(isoMillis),
      duration: expect.any(Number),
      trigger: { type: 'manual' },
      executionId: expect.stringMatching(/^exec_/),
      error: null,
    });

    const execution = await call('GET', `/functions/${echoFn}/executions/${run.executionId as string}`);
    expect(execution.body.data).toMatchObject({
      status: 'completed',
      params: { greeting: 'hi', trigger: { type: 'manual' } },
      result: { greeting: 'hi', trigger: { type: 'manual' } },
      trigger: { type: 'automation', automationId: automation.id },
    });

    const { body: got } = await get(automation.id);
    expect(got.status).toBe('inactive');
    expect(got.executionStats).toEqual({
      lastExecution: run.startedAt,
      lastStatus: 'success',
      successCount: 1,
      failureCount: 0,
      nextExecution: null,
    });

    const retried = await call('POST', `/automations/${automation.id}/runs/${run.id as string}/retry`);
    expect(retried).toEqual(error(409, 'CONFLICT'));
    const unknown = await call('POST', `/automations/${automation.id}/runs/run_doesnotexist00000000000/retry`);
    expect(unknown).toEqual(error(404, 'RUN_NOT_FOUND'));
  });

  it('answers 409 CONFLICT to a retry of a run still running', async () => {
    const slowFn = await deploy(
      "module.exports = async () => { const end = Date.now() + 2500; while (Date.now() < end) {} return 'slow'; };",
    );
    const automation = await create({ action: { type: 'function', functionId: slowFn } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    const retried = await call('POST', `/automations/${automation.id}/runs/${fired.body.run.id as string}/retry`);
    expect(retried).toEqual(error(409, 'CONFLICT'));
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({ id: fired.body.run.id, status: 'success' });
  });

  it('records a failing function as a failure run, counts it, and retries it as a new run', async () => {
    const automation = await create({ status: 'active', action: { type: 'function', functionId: failFn } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired.status).toBe(202);
    const [failed] = await settledRuns(automation.id, 1);
    expect(failed).toMatchObject({
      id: fired.body.run.id,
      status: 'failure',
      trigger: { type: 'manual' },
      executionId: expect.stringMatching(/^exec_/),
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(failed).not.toHaveProperty('retryOf');
    const { body: got } = await get(automation.id);
    expect(got.status).toBe('active');
    expect(got.executionStats).toMatchObject({
      lastExecution: failed.startedAt,
      lastStatus: 'failure',
      successCount: 0,
      failureCount: 1,
      nextExecution: expect.stringMatching(isoMillis),
    });

    const retried = await call('POST', `/automations/${automation.id}/runs/${failed.id as string}/retry`);
    expect(retried).toEqual({
      status: 202,
      body: {
        run: { id: expect.stringMatching(/^run_/), status: 'running', startedAt: expect.stringMatching(isoMillis) },
      },
    });
    expect(retried.body.run.id).not.toBe(failed.id);
    const runs = await settledRuns(automation.id, 2);
    expect(idsOf(runs)).toEqual([retried.body.run.id, failed.id]);
    expect(runs[0]).toMatchObject({
      status: 'failure',
      retryOf: failed.id,
      trigger: { type: 'manual' },
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(runs[0].executionId).not.toBe(failed.executionId);
    expect((await get(automation.id)).body.executionStats).toMatchObject({ failureCount: 2, lastStatus: 'failure' });

    // The run history: paginated, newest first, filtered by status.
    const page = await call('GET', `/automations/${automation.id}/runs`);
    expect(page.body.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false });
    const first = await call('GET', `/automations/${automation.id}/runs?limit=1`);
    expect(idsOf(first.body.runs)).toEqual([retried.body.run.id]);
    expect(first.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    const second = await call('GET', `/automations/${automation.id}/runs?limit=1&offset=1`);
    expect(idsOf(second.body.runs)).toEqual([failed.id]);
    expect(second.body.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
    expect((await runsOf(automation.id, '&status=failure')).length).toBe(2);
    expect((await call('GET', `/automations/${automation.id}/runs?status=success`)).body).toEqual({
      runs: [],
      pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
    });
    for (const [query, field] of [
      ['?status=failed', 'status'],
      ['?status=completed', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?offset=-1', 'offset'],
      ['?limit=x', 'limit'],
    ]) {
      expect(await call('GET', `/automations/${automation.id}/runs${query}`)).toEqual(
        error(400, 'INVALID_REQUEST', { field }),
      );
    }

    // A run id of another automation is no run of this one.
    const other = await create();
    expect(await call('POST', `/automations/${other.id}/runs/${failed.id as string}/retry`)).toEqual(
      error(404, 'RUN_NOT_FOUND'),
    );
    expect(await runsOf(other.id)).toEqual([]);

    // Deleting the automation takes its runs with it.
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
    expect(await call('GET', `/automations/${automation.id}/runs`)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
  });
});

describe('workflows an operator filters on', () => {
  it('runs a function action in the one workflow of its run, labelled with the account, automation, function and trigger', async () => {
    const automation = await create({ action: { type: 'function', functionId: echoFn } });
    await call('POST', `/automations/${automation.id}/trigger`);
    const [run] = await settledRuns(automation.id, 1);
    const labelsOf = async (workflowId: string) => {
      const described = await api.services.temporal.client.workflow.getHandle(workflowId).describe();
      return Object.fromEntries(described.typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value]));
    };
    const account = expect.stringMatching(/^acct_/);
    expect(await labelsOf(run.id)).toMatchObject({
      NeoflowAccountId: account,
      NeoflowAutomationId: automation.id,
      NeoflowFunctionId: echoFn,
      NeoflowTrigger: 'manual',
    });
    // No workflow of its own: the fire reaches the code through one workflow, the run's.
    await expect(api.services.temporal.client.workflow.getHandle(run.executionId).describe()).rejects.toThrow(
      WorkflowNotFoundError,
    );
  });
});

describe('contract actions', () => {
  it('fails a run whose transaction the node refuses (a signer without GAS) at once, with the node`s reason', async () => {
    const automation = await create({ action: contractAction });
    expect((await call('POST', `/automations/${automation.id}/trigger`)).status).toBe(202);
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({
      status: 'failure',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      error: {
        name: 'TransactionRejected',
        message: expect.stringMatching(/^The node refused 0x[0-9a-f]{64}: .*Insufficient funds/),
      },
    });
    // Prepared and relayed once each: the refusal is an outcome, not an activity failure retried 20 times.
    const history = await rawHistory(api, run.id);
    const activities = history.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['prepareContractRun', 'relayContractRun']);
    const attempts = history.flatMap((event) => event.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(attempts).toEqual([1, 1]);
  });

  it('fails a run of an account without a signer at once, saying so', async () => {
    const account = uniqueAccountName('unsigned');
    const unsignedKey = await keyFor(['*'], account);
    const orm = api.database.orm;
    const [row] = await orm.em
      .getConnection()
      .execute<{ id: string }[]>('select id from accounts where name = ?', [account]);
    // An account made before signers existed, whose keys all predate them.
    await orm.em.getConnection().execute('delete from account_signers where account_id = ?', [row!.id]);
    const created = await call('POST', '/automations', body({ action: contractAction }), unsignedKey);
    expect(created.status).toBe(201);
    expect((await call('POST', `/automations/${created.body.id}/trigger`, undefined, unsignedKey)).status).toBe(202);
    const runs = await until(
      async () =>
        (await call('GET', `/automations/${created.body.id}/runs`, undefined, unsignedKey)).body.runs as {
          status: string;
        }[],
      (list) => list.length === 1 && list[0]!.status !== 'running',
    );
    expect(runs[0]).toMatchObject({ status: 'failure', error: { name: 'NoSigner' } });
  });

  it('fails a run whose test invocation faults with the VM exception, and signs and sends nothing', async () => {
    const automation = await create({ action: { ...contractAction, operation: 'nope' } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired.status).toBe(202);
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({
      status: 'failure',
      txHash: null,
      vmState: 'FAULT',
      gasConsumed: expect.stringMatching(/^\d+$/),
      error: { name: 'ContractFault', message: expect.stringContaining('method not found: nope') },
    });
  });
});

describe('price trigger firing (local price source)', () => {
  let prices: Awaited<ReturnType<typeof startPriceServer>>;
  beforeAll(async () => {
    prices = await startPriceServer();
  });
  afterAll(() => prices.close());

  /** Above 12.5, read every second from the local source, running the echo function. */
  const watchPrice = () =>
    create({
      status: 'active',
      trigger: {
        ...priceTrigger,
        source: { url: prices.url, path: 'data.price', timestampPath: 'data.ts' },
        pollInterval: 1,
        maxAge: 60,
      },
      action: { type: 'function', functionId: echoFn },
    });
  /** Longer than one poll interval: at least one read happens. */
  const aPoll = () => sleep(2_200);

  it('fires when the condition becomes true, re-arms after false, compares decimals strictly, ignores stale prices', async () => {
    prices.set('15');
    const automation = await watchPrice();
    const [first] = await settledRuns(automation.id, 1);
    expect(first).toMatchObject({
      status: 'success',
      trigger: {
        type: 'price',
        asset: 'NEO',
        currency: 'USD',
        price: '15',
        observedAt: expect.stringMatching(isoMillis),
      },
    });
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);

    // Equal is not above: false, so it re-arms; a price above by 1e-20 then fires (no float rounding).
    prices.set('12.5');
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);
    prices.set('12.50000000000000000001');
    const [second] = await settledRuns(automation.id, 2);
    expect(second.trigger.price).toBe('12.50000000000000000001');

    // Re-armed by a low price, then a high but stale one: nothing fires until the price is fresh.
    prices.set('10');
    await aPoll();
    prices.set('20', 120);
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(2);
    prices.set('20');
    const [third] = await settledRuns(automation.id, 3);
    expect(third).toMatchObject({ status: 'success', trigger: { price: '20' } });
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
  });

  it('does not fire again when an active automation whose condition holds is renamed', async () => {
    prices.set('15');
    const automation = await watchPrice();
    await settledRuns(automation.id, 1);
    expect((await call('PATCH', `/automations/${automation.id}`, { name: 'renamed' })).status).toBe(200);
    await aPoll();
    expect(await runsOf(automation.id)).toHaveLength(1);
  });
});
