import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import proto from '@temporalio/proto';
import { ApplicationFailure, defaultPayloadConverter, type Payload } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createApp } from '../../src/app/app.ts';
import { loadConfig } from '../../src/config.ts';
import { codecCapability } from '../../src/codec/codec.auth.ts';
import { dataConverter, EncryptionCodec } from '../../src/temporal/codec.ts';
import { defaultWorkerId } from '../../activities/index.ts';
import { prebuiltWorkflowBundle } from '../../worker/bundle.ts';
import { openWorker } from '../../worker/worker.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testOperatorToken, testPayloadKey, testWorkerEnv } from '../support/temporal.ts';
import { payloadsIn } from '../support/canary.ts';
import { rawHistory } from '../support/worker.ts';

const { History } = proto.temporal.api.history.v1;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const uiOrigin = 'http://127.0.0.1:8233';
const toPayload = (value: unknown) => defaultPayloadConverter.toPayload(value);
const asJson = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? []).toString('base64'),
});
const fromJson = ({ metadata, data }: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')])),
  data: Buffer.from(data, 'base64'),
});

/** A request as the Web UI sends it: JSON, X-Namespace, and the query string newer UIs add. */
function codec(operation: string, body: unknown, headers: Record<string, string> = {}, url = api.url) {
  return fetch(`${url}/v1/codec/${operation}?preserveStorageRefs=true`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify(body),
  });
}
const asOperator = { Authorization: `Bearer ${testOperatorToken}` };

async function decodeOverHttp(payloads: Payload[]): Promise<unknown[]> {
  const response = await codec('decode', { payloads: payloads.map(asJson) }, asOperator);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { payloads: Parameters<typeof fromJson>[0][] };
  return body.payloads.map((json) => defaultPayloadConverter.fromPayload(fromJson(json)));
}

/** Runs pingWorkflow, with a recognisable argument and memo, on a worker of its own. */
async function runPingWithWorker(canary: string) {
  const dataDir = await mkdtemp(join(tmpdir(), 'neoflow-codec-'));
  const taskQueue = `codec-${randomBytes(4).toString('hex')}`;
  const config = loadConfig(
    testWorkerEnv(api.database.url, { NEOFLOW_DATA_DIR: dataDir, NEOFLOW_TASK_QUEUE: taskQueue }),
  );
  const { worker, close } = await openWorker(config, { mainOnly: true });
  try {
    const workflowId = `ping_${taskQueue}`;
    const run = api.services.temporal.client.workflow.execute('pingWorkflow', {
      taskQueue,
      workflowId,
      args: [canary],
      memo: { note: canary },
    });
    return { workflowId, result: await worker.runUntil(run) };
  } finally {
    await close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type FailingRun = Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath' | 'activities'> & {
  workflowType: string;
  args?: unknown[];
};

/** Runs a workflow that fails on a worker of its own with the one data converter; the client's error. */
async function runToFailure({ workflowType, args = [], ...workerOptions }: FailingRun) {
  const taskQueue = `codec-failure-${randomBytes(4).toString('hex')}`;
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  try {
    const worker = await Worker.create({
      ...workerOptions,
      connection,
      namespace: 'default',
      taskQueue,
      dataConverter: dataConverter(testPayloadKey),
    });
    const workflowId = `${workflowType}_${taskQueue}`;
    const run = api.services.temporal.client.workflow.execute(workflowType, { taskQueue, workflowId, args });
    const error = await worker.runUntil(run).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { workflowId, error };
  } finally {
    await connection.close();
  }
}

/** The raw history holds no trace of the canary, and every failure in it is encoded. */
async function expectFailuresSealed(workflowId: string, canary: string) {
  const events = await rawHistory(api, workflowId);
  expect(Buffer.from(History.encode({ events }).finish()).includes(canary)).toBe(false);
  for (const payload of payloadsIn(events))
    expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');
  const workflowFailure = events.at(-1)!.workflowExecutionFailedEventAttributes!.failure!;
  for (let failure: typeof workflowFailure | null | undefined = workflowFailure; failure; failure = failure.cause) {
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
  }
  return { events, workflowFailure };
}

describe('Temporal payload encryption', () => {
  it('keeps input, memo, activity result and workflow result out of the raw history, and the codec endpoint opens them', async () => {
    const canary = `canary-${randomBytes(8).toString('hex')}`;
    const { workflowId, result } = await runPingWithWorker(canary);
    expect(result).toEqual({ workerId: defaultWorkerId() });

    const events = await rawHistory(api, workflowId);
    const rawBytes = Buffer.from(History.encode({ events }).finish());
    expect(rawBytes.includes(canary)).toBe(false);
    expect(rawBytes.includes(defaultWorkerId())).toBe(false);
    const payloads = payloadsIn(events);
    expect(payloads.length).toBeGreaterThanOrEqual(4);
    for (const payload of payloads)
      expect(Buffer.from(payload.metadata!.encoding!).toString()).toBe('binary/encrypted');

    const started = events[0]!.workflowExecutionStartedEventAttributes!;
    expect(await decodeOverHttp(started.input!.payloads!)).toEqual([canary]);
    expect(await decodeOverHttp([started.memo!.fields!.note!])).toEqual([canary]);
    const completed = events.at(-1)!.workflowExecutionCompletedEventAttributes!;
    expect(await decodeOverHttp(completed.result!.payloads!)).toEqual([{ workerId: defaultWorkerId() }]);
  });

  it('keeps an activity failure out of the raw history (worker and production bundle), and the client still reads it', async () => {
    const canary = `canary-${randomBytes(8).toString('hex')}`;
    const message = `ping failed with ${canary}`;
    const cacheDir = await mkdtemp(join(tmpdir(), 'neoflow-codec-'));
    const { workflowId, error } = await runToFailure({
      workflowType: 'pingWorkflow',
      workflowBundle: { codePath: await prebuiltWorkflowBundle(cacheDir) },
      activities: {
        ping: async () => {
          throw ApplicationFailure.nonRetryable(message);
        },
      },
    }).finally(() => rm(cacheDir, { recursive: true, force: true }));
    expect(error).toMatchObject({
      name: 'WorkflowFailedError',
      cause: {
        name: 'ActivityFailure',
        cause: { name: 'ApplicationFailure', message, stack: expect.stringContaining(canary) },
      },
    });

    // The worker encodes the activity's failure; the bundle re-encodes the workflow's, whose outer
    // "Activity task failed" stays clear unless the bundle holds the encoding failure converter.
    const { events, workflowFailure } = await expectFailuresSealed(workflowId, canary);
    const activityFailure = events.find((event) => event.activityTaskFailedEventAttributes)!
      .activityTaskFailedEventAttributes!.failure!;
    expect(activityFailure.message).toBe('Encoded failure');
    expect(await decodeOverHttp([workflowFailure.cause!.encodedAttributes!])).toEqual([
      { message, stack_trace: expect.stringContaining(canary) },
    ]);
  });

  it('keeps a failure thrown by the workflow itself out of the raw history, and the client still reads it', async () => {
    const canary = `canary-${randomBytes(8).toString('hex')}`;
    const { workflowId, error } = await runToFailure({
      workflowType: 'failingWorkflow',
      args: [canary],
      workflowsPath: fileURLToPath(new URL('../support/failing-workflows.ts', import.meta.url)),
    });
    expect(error).toMatchObject({
      name: 'WorkflowFailedError',
      cause: { name: 'ApplicationFailure', message: canary, stack: expect.stringContaining(canary) },
    });
    const { workflowFailure } = await expectFailuresSealed(workflowId, canary);
    expect(await decodeOverHttp([workflowFailure.encodedAttributes!])).toEqual([
      { message: canary, stack_trace: expect.stringContaining(canary) },
    ]);
  });

  it('encodes over HTTP too: what /encode seals, /decode opens', async () => {
    const plain = toPayload({ hello: 'operator' });
    const response = await codec('encode', { payloads: [asJson(plain)] }, asOperator);
    expect(response.status).toBe(200);
    const { payloads } = (await response.json()) as { payloads: Parameters<typeof fromJson>[0][] };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
    expect(await decodeOverHttp(payloads.map(fromJson))).toEqual([{ hello: 'operator' }]);
  });

  it('passes payloads that are not sealed through /decode unchanged', async () => {
    expect(await decodeOverHttp([toPayload('clear')])).toEqual(['clear']);
  });
});

describe('codec endpoint authentication', () => {
  const body = { payloads: [asJson(toPayload('x'))] };

  it.each([
    ['no token', {}],
    ['a wrong token', { Authorization: `Bearer ${testOperatorToken}-not` }],
    ['the token in X-API-Key', { 'X-API-Key': testOperatorToken }],
    ['the UI origin alone', { Origin: uiOrigin }],
  ])('answers 401 unauthorized to %s, on both paths', async (_label, headers) => {
    for (const operation of ['decode', 'encode']) {
      const response = await codec(operation, body, headers);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        success: false,
        error: { code: 'unauthorized', message: expect.stringMatching(/operator token/), details: {} },
      });
    }
  });

  it('admits no Origin in development either: a local process claiming the dev UI’s origin gets 401', async () => {
    const development = { ...api.services, config: { ...api.services.config, env: 'development' as const } };
    const handle = createApp(development).callback();
    const server = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await codec('decode', body, { Origin: uiOrigin }, url)).status).toBe(401);
      expect((await codec('decode', body, { Origin: 'http://localhost:8233' }, url)).status).toBe(401);
      expect((await codec(`ui/${codecCapability(testOperatorToken)}/decode`, body, {}, url)).status).toBe(200);
    } finally {
      await new Promise((resolveClose) => server.close(resolveClose));
    }
  });

  it('serves the Web UI under its capability path without a token, and nothing under another', async () => {
    const capability = codecCapability(testOperatorToken);
    const decoded = await codec(`ui/${capability}/decode`, body, { Origin: uiOrigin });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('Access-Control-Allow-Origin')).toBe(uiOrigin);
    expect((await codec(`ui/${capability}/encode`, body)).status).toBe(200);
    for (const wrong of [`${capability}x`, capability.slice(1), codecCapability('another-operator-token-000000')]) {
      const refused = await codec(`ui/${wrong}/decode`, body, { Origin: uiOrigin });
      expect([wrong, refused.status]).toEqual([wrong, 401]);
    }
    const preflight = await fetch(`${api.url}/v1/codec/ui/${capability}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: uiOrigin, 'Access-Control-Request-Method': 'POST' },
    });
    expect([preflight.status, preflight.headers.get('Access-Control-Allow-Origin')]).toEqual([204, uiOrigin]);
  });
});

describe('codec endpoint CORS and validation', () => {
  const preflight = (origin: string) =>
    fetch(`${api.url}/v1/codec/decode`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-namespace',
      },
    });

  it.each([uiOrigin, 'http://localhost:8233'])('answers the preflight of the allowed origin %s', async (origin) => {
    const response = await preflight(origin);
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(origin);
    expect(response.headers.get('Access-Control-Allow-Methods')).toBe('POST');
    expect(response.headers.get('Access-Control-Allow-Headers')).toMatch(/Content-Type.*X-Namespace/);
    expect(response.headers.get('Vary')).toMatch(/Origin/);
  });

  it('refuses the preflight of any other origin, with no CORS header', async () => {
    const response = await preflight('http://evil.example');
    expect(response.status).toBe(403);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
  });

  it('lets only the allowed origin read answers, errors included', async () => {
    const body = { payloads: [] };
    const allowed = await codec('decode', body, { ...asOperator, Origin: uiOrigin });
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe(uiOrigin);
    expect((await codec('decode', body, { Origin: uiOrigin })).headers.get('Access-Control-Allow-Origin')).toBe(
      uiOrigin,
    );
    const other = await codec('decode', body, { ...asOperator, Origin: 'http://evil.example' });
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it.each([
    ['payloads missing', {}, 'payloads'],
    ['payloads not a list', { payloads: 'x' }, 'payloads'],
    ['data not base64', { payloads: [{ metadata: {}, data: 'not base64!' }] }, 'payloads.0.data'],
    ['metadata not base64', { payloads: [{ metadata: { encoding: 7 } }] }, 'payloads.0.metadata.encoding'],
  ])('answers 400 invalid_request to %s', async (_label, body, field) => {
    const response = await codec('decode', body, asOperator);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      success: false,
      error: { code: 'invalid_request', details: { field } },
    });
  });

  it('answers 400 naming the payload that was altered', async () => {
    const sealed = await new EncryptionCodec(testPayloadKey).encode(['kept', 'altered'].map(toPayload));
    const altered = Buffer.from(sealed[1]!.data!);
    altered[20]! ^= 1;
    const response = await codec(
      'decode',
      { payloads: [asJson(sealed[0]!), asJson({ ...sealed[1]!, data: altered })] },
      asOperator,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_request', details: { field: 'payloads.1' } },
    });
  });

  it('answers 405 with Allow to another method', async () => {
    const response = await fetch(`${api.url}/v1/codec/decode`, { headers: asOperator });
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toMatch(/POST/);
  });
});
