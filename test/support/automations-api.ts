import { wallet } from '@cityofzion/neon-js';
import { expect } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { startTestApi, type TestApi } from './api.ts';
import { testMasters, uniqueAccountName } from './keys.ts';
import { until } from './polling.ts';
import { startApiWithWorker, type RunningWorker } from './worker.ts';

/**
 * What the automations area's HTTP tests share: an API over real services (with workers when the
 * file's tests run code), two accounts with keys, a few functions, and calls and bodies in the
 * area's shape. The bindings are live: each file's beforeAll fills them (startAutomationsApi).
 */

export let api: TestApi;
/** Absent when the file's tests run no code (startAutomationsApi({ runs: false })). */
export let worker: RunningWorker | undefined;
/** Account A: every scope. */
export let key: string;
export let accountName: string;
/** Account B: every scope, nothing shared with A. */
export let otherKey: string;
/** A's functions: one returns its params, one throws; and one of B's. */
export let echoFn: string;
export let failFn: string;
export let otherFn: string;

/**
 * The API for one file's tests; with `runs: false`, without workers (its tests create, read and
 * change automations but run nothing), which starts faster. `env`: variables of both processes.
 */
export async function startAutomationsApi({
  runs = true,
  env = {},
}: { runs?: boolean; env?: Record<string, string> } = {}) {
  if (runs) ({ api, worker } = await startApiWithWorker({ env }));
  else api = await startTestApi([], env, { hostWorker: false });
  accountName = uniqueAccountName('auto-a');
  key = await keyFor(['*'], accountName);
  otherKey = await keyFor();
  echoFn = await deploy('module.exports = async (context) => context.params;');
  failFn = await deploy("module.exports = async () => { throw new TypeError('boom'); };");
  otherFn = await deploy('module.exports = async () => 1;', otherKey);
}

export async function stopAutomationsApi() {
  await worker?.stop();
  await api.close();
}

/**
 * A key of `account` (a fresh one by default) with a rate far above what this file sends, so that
 * the rate limiter (tested on its own) never answers for the area under test.
 */
export async function keyFor(scopes: Scope[] = ['*'], account = uniqueAccountName('auto')) {
  const rate = { requests: 100_000, windowSeconds: 1 };
  return (await createKey(api.database.orm.em.fork(), testMasters, account, scopes, { rate })).key;
}

// The automations area answers bare bodies: read them loosely.
export type Body = any;

/** One call under /v1 with `Authorization: Bearer`; `apiKey` null sends no key at all. */
export async function call(method: string, path: string, body?: unknown, apiKey: string | null = key) {
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
export async function callRaw(method: string, path: string, raw: string, contentType = 'application/json') {
  const response = await fetch(`${api.url}/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
    body: raw,
  });
  return { status: response.status, body: (await response.json()) as Body };
}

let counter = 0;
/** A number no other call in this file got: unique names. */
export const unique = () => ++counter;
export async function deploy(code: string, apiKey = key): Promise<string> {
  const created = await call('POST', '/functions', { name: `auto-api-${++counter}`, code, runtime: 'node18' }, apiKey);
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

export const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';
export const address = new wallet.Account().address;
export const yearly = { type: 'schedule', cron: '@yearly' };
export const contractAction = { type: 'contract', scriptHash: gas, operation: 'symbol', args: [] };
export const priceTrigger = { type: 'price', asset: 'NEO', condition: 'above', value: '12.5', currency: 'USD' };
export const missingAutomation = 'auto_doesnotexist0000000000';

/** A valid create body: inactive, yearly, a read-only contract call; `overrides` replace fields. */
export const body = (overrides: Record<string, unknown> = {}) => ({
  name: `automation ${++counter}`,
  status: 'inactive',
  trigger: yearly,
  action: contractAction,
  ...overrides,
});

export async function create(overrides: Record<string, unknown> = {}, apiKey = key): Promise<Body> {
  const created = await call('POST', '/automations', body(overrides), apiKey);
  expect(created.status).toBe(201);
  return created.body;
}

export const idsOf = (items: { id: string }[]) => items.map((item) => item.id);

export const get = async (id: string, apiKey = key) => call('GET', `/automations/${id}`, undefined, apiKey);

export const scheduleOf = (id: string) => api.services.temporal.client.schedule.getHandle(id).describe();

export async function runsOf(id: string, query = ''): Promise<Body> {
  const listed = await call('GET', `/automations/${id}/runs?limit=100${query}`);
  expect(listed.status).toBe(200);
  return listed.body.runs;
}

/** The runs of `id` once none is running any more. */
export const settledRuns = (id: string, count: number): Promise<Body> =>
  until<Body[]>(
    () => runsOf(id),
    (runs) => runs.length >= count && runs.every((run) => run.status !== 'running'),
  );

export const error = (status: number, code: string, details: Record<string, unknown> = {}) => ({
  status,
  body: { error: { code, message: expect.any(String), details } },
});
