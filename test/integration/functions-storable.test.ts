import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';
import { closeServer } from '../support/close-server.ts';

// What user code writes that PostgreSQL cannot store (U+0000, lone surrogates) is recorded as
// U+FFFD, once: the run is not lost and its code is not run again. Every run calls the node
// through a proxy that counts each function's calls: the count is how often its code ran.
let api: TestApi;
let worker: RunningWorker;
let call: ApiCall;
let rpc: Awaited<ReturnType<typeof startCountingRpc>>;
beforeAll(async () => {
  rpc = await startCountingRpc(inject('neoRpcUrl'));
  // Every run goes to the worker, whose node is the counting proxy.
  ({ api, worker } = await startApiWithWorker({ hostWorker: false, env: { NEO_RPC_URL: rpc.url } }));
  call = testApi(api.url, (await issueKey(api.database.orm)).key);
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await rpc?.close();
});

/** Forwards JSON-RPC to the node, counting the requests whose body names each marker. */
async function startCountingRpc(nodeUrl: string) {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      void fetch(nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) =>
          response.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
        )
        .catch(() => response.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: (marker: string) => bodies.filter((body) => body.includes(marker)).length,
    close: () => closeServer(server),
  };
}

let counter = 0;
const timeoutSeconds = 20;

/** A function whose code first calls the node once with its own marker, then runs `body`. */
async function deploy(body: string) {
  const marker = `storable${++counter}x${Date.now()}`;
  const code = `module.exports = async (context) => {
    await context.services.blockchain.invokeRead('0x${'ab'.repeat(20)}', '${marker}', []).catch(() => null);
    ${body}
  };`;
  const created = await call('POST', '/functions', { name: marker, code, runtime: 'node18', timeout: timeoutSeconds });
  expect(created.status).toBe(201);
  return { id: created.body.data!.id as string, marker };
}

/** Invokes synchronously, answered within the function's timeout. */
async function invoke(id: string) {
  const started = performance.now();
  const invoked = await call('POST', `/functions/${id}/invoke`, {});
  expect(performance.now() - started).toBeLessThan(timeoutSeconds * 1000);
  return invoked;
}

const stored = async (id: string, executionId: string) =>
  (await call('GET', `/functions/${id}/executions/${executionId}`)).body.data as Record<string, unknown>;

describe('a run whose output PostgreSQL cannot store as it is', () => {
  it('records a log line holding U+0000 as U+FFFD, completed, and runs the code once', async () => {
    const { id, marker } = await deploy(`context.log.info('a\\u0000b'); return 'done';`);
    const invoked = await invoke(id);
    expect(invoked.status).toBe(200);
    expect(invoked.body.data).toMatchObject({ execution: { status: 'completed' }, result: 'done' });
    const executionId = invoked.body.data!.execution.id as string;
    expect(await stored(id, executionId)).toMatchObject({ status: 'completed', logs: [{ message: 'a\uFFFDb' }] });
    await api.services.temporal.client.workflow.getHandle(executionId).result();
    expect(rpc.calls(marker)).toBe(1);
  });

  it('records an error message holding U+0000 as the function`s own failure, and runs the code once', async () => {
    const { id, marker } = await deploy(`throw new Error('x\\u0000y');`);
    const invoked = await invoke(id);
    expect(invoked.status).toBe(500);
    expect(invoked.body.error).toMatchObject({
      code: 'execution_error',
      message: 'x\uFFFDy',
      details: { name: 'Error', message: 'x\uFFFDy' },
    });
    const executionId = invoked.body.error!.details.executionId as string;
    expect(await stored(id, executionId)).toMatchObject({
      status: 'failed',
      error: { name: 'Error', message: 'x\uFFFDy' },
    });
    await api.services.temporal.client.workflow.getHandle(executionId).result();
    expect(rpc.calls(marker)).toBe(1);
  });

  it('records an error name holding U+0000 as the function`s own failure, and runs the code once', async () => {
    const { id, marker } = await deploy(
      `const error = new Error('named'); error.name = 'Bad\\u0000Name'; throw error;`,
    );
    const invoked = await invoke(id);
    expect(invoked.status).toBe(500);
    expect(invoked.body.error).toMatchObject({
      code: 'execution_error',
      details: { name: 'Bad\uFFFDName', message: 'named' },
    });
    const executionId = invoked.body.error!.details.executionId as string;
    expect(await stored(id, executionId)).toMatchObject({ status: 'failed', error: { name: 'Bad\uFFFDName' } });
    await api.services.temporal.client.workflow.getHandle(executionId).result();
    expect(rpc.calls(marker)).toBe(1);
  });

  it('stores a result holding U+0000 and lone surrogates in nested keys and values, answered as stored', async () => {
    const { id, marker } = await deploy(
      `return { 'k\\u0000': { nested: ['v\\u0000', '\\ud800', { '\\udfff': 'ok 🟢' }] } };`,
    );
    const invoked = await invoke(id);
    expect(invoked.status).toBe(200);
    const expected = { 'k\uFFFD': { nested: ['v\uFFFD', '\uFFFD', { '\uFFFD': 'ok 🟢' }] } };
    expect(invoked.body.data!.result).toEqual(expected);
    const executionId = invoked.body.data!.execution.id as string;
    expect(await stored(id, executionId)).toMatchObject({ status: 'completed', result: expected });
    expect(rpc.calls(marker)).toBe(1);
  });
});
