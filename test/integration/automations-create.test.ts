import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallet } from '@cityofzion/neon-js';
import type { TypedSearchAttributes } from '@temporalio/common';
import {
  address,
  api,
  body,
  call,
  callRaw,
  contractAction,
  create,
  echoFn,
  error,
  gas,
  get,
  isoMillis,
  keyFor,
  otherFn,
  priceTrigger,
  scheduleOf,
  startAutomationsApi,
  stopAutomationsApi,
  unique,
  yearly,
} from '../support/automations-api.ts';
import { until } from '../support/polling.ts';

// The automations area over HTTP: creating automations, and the validation of what is sent.
beforeAll(() => startAutomationsApi({ runs: false }));
afterAll(stopAutomationsApi);

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
      network: 'default',
      status: 'active',
      trigger: { type: 'schedule', cron: '0 3 1 1 *' },
      action: { type: 'function', functionId: echoFn, parameters: {} },
      notify: [],
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
      scheduleId: `tz-probe-${unique()}`,
      spec: { cronExpressions: ['@yearly'], timezone: 'PST' },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'tz-probe', args: [] },
      state: { paused: true },
    });
    await expect(refusedByServer).rejects.toThrow();
    const created = await call('POST', '/automations', body({ trigger: { ...yearly, timezone: 'PST' } }));
    expect([created.status, created.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  it('makes one Temporal Schedule per schedule automation, whose fires are their runs` workflows: overlaps allowed, a 60 s catch-up window, labelled fires', async () => {
    const created = await create({ status: 'active', trigger: { type: 'schedule', cron: '0 0 1 1 *' } });
    const schedule = await scheduleOf(created.id);
    expect(schedule.policies).toMatchObject({ overlap: 'ALLOW_ALL', catchupWindow: 60_000 });
    expect(schedule.action).toMatchObject({
      workflowType: 'scheduledRun',
      workflowId: created.id.replace(/^auto_/, 'run_'),
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
    // A function action's fires start labelled with its function: the run upserts no label of its own.
    const runsCode = await create({
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      action: { type: 'function', functionId: echoFn },
    });
    const labelled = (await scheduleOf(runsCode.id)).action as { typedSearchAttributes: TypedSearchAttributes };
    expect(labelled.typedSearchAttributes.getAll().find(({ key }) => key.name === 'NeoflowFunctionId')?.value).toBe(
      echoFn,
    );
  });

  it.each(['active', 'inactive'])(
    'creates an %s schedule marked paused or not from the start: its scheduler writes no search attribute of its own',
    async (status) => {
      const created = await create({ status, trigger: { type: 'schedule', cron: '0 0 1 1 *' } });
      // The scheduler workflow of the schedule, Temporal's own (temporal-sys-scheduler:<schedule id>).
      const scheduler = api.services.temporal.client.workflow.getHandle(`temporal-sys-scheduler:${created.id}`);
      const history = await until(
        () => scheduler.fetchHistory(),
        (read) => read.events?.some((event) => event.workflowTaskCompletedEventAttributes) ?? false,
      );
      const events = history.events ?? [];
      expect(events.some((event) => event.workflowTaskCompletedEventAttributes)).toBe(true);
      expect(events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes)).toEqual([]);
      expect((await scheduleOf(created.id)).state.paused).toBe(status === 'inactive');
    },
  );

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
    [priceTrigger, undefined],
    [
      { ...priceTrigger, condition: 'below', value: '0.000001', source: { preset: 'binance' }, pollInterval: 30 },
      undefined,
    ],
    [{ ...priceTrigger, asset: 'GAS', value: '100', source: { preset: 'coingecko' }, maxAge: 120 }, undefined],
    [
      {
        ...priceTrigger,
        currency: 'EUR',
        source: {
          url: 'https://prices.example.com/{asset}?vs={currency}',
          path: 'data.price',
          timestampPath: 'data.ts',
        },
        pollInterval: 1,
        maxAge: 86_400,
      },
      'https://prices.example.com/%7B…/****',
    ],
    [{ ...priceTrigger, source: { url: 'http://127.0.0.1:9/price', path: 'price' } }, 'http://127.0.0.1:9/p…/****'],
  ])('creates the price trigger %j, a custom source URL shown masked as %s', async (trigger, shownUrl) => {
    const created = await create({ trigger });
    const shown = shownUrl === undefined ? trigger : { ...trigger, source: { ...trigger.source, url: shownUrl } };
    expect(created.trigger).toEqual(shown);
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
    // Signed by the account's default signer, answered by its id.
    const signer = expect.stringMatching(/^sgn_/);
    expect((await create({ action })).action).toEqual({ ...action, signer });
    expect((await create({ action: { type: 'contract', scriptHash: gas, operation: 'symbol' } })).action).toEqual({
      type: 'contract',
      scriptHash: gas,
      operation: 'symbol',
      args: [],
      signer,
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
    ['unknown trigger type', body({ trigger: { type: 'email' } }), 'trigger.type'],
    ['trigger without type', body({ trigger: { cron: '@yearly' } }), 'trigger.type'],
    ['trigger not an object', body({ trigger: 'daily' }), 'trigger'],
    ['unknown action type', body({ action: { type: 'email', to: 'ops@example.com' } }), 'action.type'],
    [
      'webhook without signing secret',
      body({ action: { type: 'webhook', url: 'https://example.com' } }),
      'action.signingSecret',
    ],
    [
      'webhook with a ftp URL',
      body({ action: { type: 'webhook', url: 'ftp://example.com', signingSecret: 'S' } }),
      'action.url',
    ],
    ['notify not an array', body({ notify: { on: ['failure'] } }), 'notify'],
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
    ['filter value an unknown operator', blockchain({ filter: { from: { eq: 1 } } }), 'trigger.filter.from.eq'],
    ['filter operator without operands', blockchain({ filter: { from: {} } }), 'trigger.filter.from'],
    [
      'filter operand past 78 digits',
      blockchain({ filter: { amount: { gt: '9'.repeat(79) } } }),
      'trigger.filter.amount.gt',
    ],
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

  const million = '9'.repeat(1_000_000);
  it.each([
    [
      'a filter value',
      { trigger: { type: 'blockchain', scriptHash: gas, filter: { amount: million } } },
      'trigger.filter.amount',
    ],
    ['a price value', { trigger: { ...priceTrigger, value: million } }, 'trigger.value'],
    [
      'an Integer argument',
      { action: { ...contractAction, args: [{ type: 'Integer', value: million }] } },
      'action.args.0.value',
    ],
  ])(
    'refuses %s of 1,000,000 digits with 400 INVALID_REQUEST, on create and on update',
    async (_label, change, field) => {
      expect(await call('POST', '/automations', body(change))).toEqual(error(400, 'INVALID_REQUEST', { field }));
      const { id } = await create();
      expect(await call('PATCH', `/automations/${id}`, change)).toEqual(error(400, 'INVALID_REQUEST', { field }));
    },
  );

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

  it.each(['Content-Encoding', 'content-range', 'CONTENT-DISPOSITION', 'Content-Language'])(
    'refuses a webhook header named %s, on the action and a channel, at create and PATCH',
    async (name) => {
      const hook = {
        type: 'webhook',
        url: 'https://hooks.example.com/a',
        signingSecret: 'S',
        headers: { [name]: 'x' },
      };
      const asAction = await call('POST', '/automations', body({ action: hook }));
      expect(asAction).toEqual(error(400, 'INVALID_REQUEST', { field: `action.headers.${name}` }));
      const { id } = await create();
      const patched = await call('PATCH', `/automations/${id}`, { notify: [{ on: ['failure'], channel: hook }] });
      expect(patched).toEqual(error(400, 'INVALID_REQUEST', { field: `notify.0.channel.headers.${name}` }));
    },
  );

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
