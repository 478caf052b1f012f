import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import { codecCapability } from '../../src/codec/codec.auth.ts';
import type { TestApi } from '../support/api.ts';
import { anyJson, mutated, queryString, rawBodyText, urlComponent } from '../support/fuzz-arbitraries.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';
import { rawRequest } from '../support/raw-http.ts';
import { testOperatorToken } from '../support/temporal.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

/**
 * Generated bodies, path segments and query strings against every route of every area: whatever
 * a client sends, the answer is below 500 and, when an error, in the shape of the path's area.
 * `NEOFLOW_FUZZ_SEED` replays a run; a failure prints its seed and counterexample.
 */
const seed = Number(process.env.NEOFLOW_FUZZ_SEED ?? Date.now() % 2 ** 31);
const budget = { seed, verbose: true, numRuns: 150, plugins: [fc.interruptAfterTimeLimit(5_000)] };

const running = apiWithWorkerForThisFile();
let api: TestApi;
let key: string;
/** Answers of the setup calls, read loosely. */
type Loose = Record<string, any>;
/** Ids of real resources, so that generated requests reach the services, not only the 404s. */
const real: Record<string, string> = {};

/** Throws only when asked with a value no generator makes, so failed runs exist to retry. */
const fuzzCode =
  "module.exports = async (context) => { if (context.params.fail === 'on purpose') throw new Error('asked'); return null; }";
const failing = { fail: 'on purpose' };

beforeAll(async () => {
  api = running.api;
  const rate = { requests: 1_000_000, windowSeconds: 1 };
  key = (await createKey(api.database.orm.em.fork(), testMasters, uniqueAccountName('fuzz'), ['*'], { rate })).key;
  const send = async (method: string, path: string, body: unknown): Promise<Loose> =>
    JSON.parse((await rawRequest(api.url, method, `/v1${path}`, headers(), JSON.stringify(body))).text) as Loose;
  const fn = { name: 'fuzzed', code: fuzzCode, runtime: 'node18', timeout: 2 };
  real.function = (await send('POST', '/functions', fn)).data.id;
  const failed = await send('POST', `/functions/${real.function}/invoke`, { params: failing });
  real.execution = failed.error.details.executionId;
  real.secret = (await send('POST', '/secrets', { name: 'FUZZED', value: 'v' })).id;
  const action = { type: 'function', functionId: real.function, parameters: failing };
  const automation = { name: 'fuzzed', status: 'inactive', trigger: { type: 'schedule', cron: '@yearly' }, action };
  real.automation = (await send('POST', '/automations', automation)).id;
  real.run = (await send('POST', `/automations/${real.automation}/trigger`, {})).run.id;
  real.capability = codecCapability(testOperatorToken);
});

const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  ...extra,
});

type Area = 'functions' | 'automations' | 'secrets' | 'general';

interface Route {
  method: string;
  /** `:name` segments take a real id of that name or a generated segment; `:any` only the latter. */
  path: string;
  area: Area;
  body?: Record<string, unknown>;
  query?: string[];
}

const fn = { name: 'fn-x', code: 'module.exports = async () => 1', runtime: 'node18', timeout: 5, tags: ['a'] };
const schedule = { type: 'schedule', cron: '*/5 * * * *', timezone: 'Europe/Berlin' };
const contract = {
  type: 'contract',
  scriptHash: `0x${'ab'.repeat(20)}`,
  operation: 'transfer',
  args: [
    { type: 'Integer', value: '1' },
    { type: 'Array', value: [{ type: 'String', value: 's' }] },
  ],
};
const payloads = { payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'MQ==' }] };

const routes: Record<string, Route[]> = {
  functions: [
    {
      method: 'GET',
      path: '/functions',
      area: 'functions',
      query: ['limit', 'offset', 'tag', 'runtime', 'sort', 'order'],
    },
    { method: 'POST', path: '/functions', area: 'functions', body: { ...fn, environment: { A: 'b' }, secrets: [] } },
    { method: 'GET', path: '/functions/:function', area: 'functions', query: ['include_code'] },
    {
      method: 'PUT',
      path: '/functions/:function',
      area: 'functions',
      body: { description: 'd', tags: ['t'], timeout: 2 },
    },
    { method: 'DELETE', path: '/functions/:any', area: 'functions' },
    { method: 'GET', path: '/functions/:function/environment', area: 'functions' },
    { method: 'PUT', path: '/functions/:function/environment', area: 'functions', body: { API_URL: 'https://x' } },
    { method: 'PUT', path: '/functions/:function/secrets', area: 'functions', body: { secrets: ['FUZZED'] } },
  ],
  executions: [
    {
      method: 'POST',
      path: '/functions/:function/invoke',
      area: 'functions',
      body: { params: { a: [1, 'x'] }, async: true },
    },
    {
      method: 'GET',
      path: '/functions/:function/executions',
      area: 'functions',
      query: ['limit', 'offset', 'status', 'start_date', 'end_date'],
    },
    { method: 'GET', path: '/functions/:function/executions/:execution', area: 'functions' },
    { method: 'POST', path: '/functions/:function/executions/:execution/retry', area: 'functions', body: {} },
  ],
  secrets: [
    { method: 'GET', path: '/secrets', area: 'secrets', query: ['limit', 'offset'] },
    { method: 'POST', path: '/secrets', area: 'secrets', body: { name: 'S_1', value: 'v', description: 'd' } },
    { method: 'GET', path: '/secrets/:secret', area: 'secrets' },
    { method: 'PUT', path: '/secrets/:secret', area: 'secrets', body: { value: 'v2', description: 'd2' } },
    { method: 'DELETE', path: '/secrets/:any', area: 'secrets' },
  ],
  automations: [
    { method: 'GET', path: '/automations', area: 'automations', query: ['limit', 'offset', 'status', 'triggerType'] },
    {
      method: 'POST',
      path: '/automations',
      area: 'automations',
      body: { name: 'a', status: 'inactive', trigger: schedule, action: contract },
    },
    { method: 'GET', path: '/automations/:automation', area: 'automations' },
    {
      method: 'PATCH',
      path: '/automations/:automation',
      area: 'automations',
      body: { name: 'b', trigger: schedule, action: contract },
    },
    { method: 'DELETE', path: '/automations/:any', area: 'automations' },
    { method: 'POST', path: '/automations/:automation/trigger', area: 'automations', body: {} },
    { method: 'GET', path: '/automations/:automation/runs', area: 'automations', query: ['limit', 'offset', 'status'] },
    { method: 'POST', path: '/automations/:automation/runs/:run/retry', area: 'automations', body: {} },
  ],
  'account and health': [
    { method: 'GET', path: '/account', area: 'general' },
    { method: 'GET', path: '/health', area: 'general' },
  ],
  codec: [
    { method: 'POST', path: '/codec/decode', area: 'general', body: payloads },
    { method: 'POST', path: '/codec/encode', area: 'general', body: payloads },
    { method: 'POST', path: '/codec/ui/:capability/decode', area: 'general', body: payloads },
    { method: 'OPTIONS', path: '/codec/ui/:capability/encode', area: 'general' },
  ],
};

/** A concrete request for `route`: each id real or generated, a query, and a body of any kind. */
function requestFor(route: Route) {
  const segments = route.path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return fc.constant(segment);
    const name = segment.slice(1);
    return name === 'any' ? urlComponent : fc.oneof(fc.constant(real[name]!), urlComponent);
  });
  const body = route.body
    ? fc.oneof(
        { weight: 4, arbitrary: mutated(route.body).map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
        { weight: 1, arbitrary: rawBodyText },
      )
    : fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, rawBodyText);
  return fc.record({
    path: fc.tuple(...segments).map((parts) => parts.join('/')),
    query: queryString(route.query ?? []),
    body,
    // The codec's credential; elsewhere a token of the wrong kind.
    operator: route.path.startsWith('/codec')
      ? fc.boolean()
      : fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, fc.constant(true)),
  });
}

/** The error shapes of the contract: the functions area's envelope, or the bare upper-case one. */
function expectAreaError(area: Area, answer: unknown) {
  const enveloped = (answer as { success?: unknown }).success === false;
  const error = (answer as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
  expect(error).toEqual({ code: expect.any(String), message: expect.any(String), details: expect.any(Object) });
  if (enveloped) {
    expect(error!.code).toMatch(/^[a-z_]+$/);
    // An unmatched path or method answers in the general shape, whatever the area of its prefix.
    if (area === 'automations' || area === 'secrets') expect(error!.code).toMatch(/^(not_found|method_not_allowed)$/);
  } else {
    expect(area === 'automations' || area === 'secrets').toBe(true);
    expect(error!.code).toMatch(/^[A-Z_]+$/);
  }
}

/** Paths made of the API's own words in any case and order, real ids, dot segments and junk. */
const anyPath = (ids: string[]) => {
  const segment = fc.oneof(
    fc.constantFrom('functions', 'Functions', 'SECRETS', 'secrets', 'automations', 'AUTOMATIONS', 'codec', 'CODEC'),
    fc.constantFrom('ui', 'decode', 'account', 'Account', 'health', 'invoke', 'runs', 'retry', 'environment'),
    fc.constantFrom('', '.', '..', '%2e%2e', '%2F', 'executions', 'trigger', '%66unctions'),
    fc.constantFrom(...ids),
    urlComponent,
  );
  const version = fc.constantFrom('v1', 'v1', 'v1', 'V1', '%76%31', '');
  return fc
    .tuple(version, fc.array(segment, { maxLength: 6 }))
    .map(([first, rest]) => `/${[first, ...rest].join('/')}`);
};

/** The area the API answers a path in: its second segment, as the error handler reads it. */
const areaOfPath = (path: string): Area => {
  const segment = path.split('/')[2];
  return segment === 'functions' || segment === 'automations' || segment === 'secrets' ? segment : 'general';
};

describe('fuzzing paths', () => {
  it('answers any method on any path below 500, errors in the shape of the path’s area', async () => {
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS');
    const request = fc.record({
      method,
      path: anyPath(Object.values(real)),
      query: queryString([]),
      body: fc.option(rawBodyText, { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ method: verb, path, query, body }) => {
        const answer = await rawRequest(api.url, verb, `${path}${query}`, headers(), body);
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400) expectAreaError(areaOfPath(path), JSON.parse(answer.text));
      }),
      budget,
    );
  });
});

describe.each(Object.entries(routes))('fuzzing the %s routes', (_name, areaRoutes) => {
  it('answers every generated request below 500, errors in the area’s shape', async () => {
    const request = fc
      .constantFrom(...areaRoutes)
      .chain((route) => requestFor(route).map((sent) => ({ route, ...sent })));
    await fc.assert(
      fc.asyncProperty(request, async ({ route, path, query, body, operator }) => {
        const extra: Record<string, string> = operator ? { Authorization: `Bearer ${testOperatorToken}` } : {};
        const answer = await rawRequest(api.url, route.method, `/v1${path}${query}`, headers(extra), body);
        expect(answer.status).toBeLessThan(500);
        if (answer.status >= 400) expectAreaError(route.area, JSON.parse(answer.text));
      }),
      budget,
    );
  });
});
