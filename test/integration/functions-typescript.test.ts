import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startApiWithWorker, type RunningWorker } from '../support/worker.ts';

let api: TestApi;
let worker: RunningWorker;
let call: ApiCall;
beforeAll(async () => {
  ({ api, worker } = await startApiWithWorker());
  call = testApi(api.url, (await issueKey(api.database.orm)).key);
});
afterAll(async () => {
  await worker.stop();
  await api.close();
});

const typed = `interface Params { name: string }
type Answer = { hello: string; at: number };

export default async function (context: { params: Params }): Promise<Answer> {
  const at: number = await new Promise<number>((resolve) => setTimeout(() => resolve(7), 10));
  return { hello: context.params.name, at };
}
`;

let counter = 0;
const create = (body: Record<string, unknown>) => call('POST', '/functions', { name: `ts-${++counter}`, ...body });

describe('runtime typescript through the API', () => {
  it('stores a TypeScript function with an interface and annotations, and runs it', async () => {
    const created = await create({ code: typed, runtime: 'typescript' });
    expect(created).toMatchObject({ status: 201, body: { data: { runtime: 'typescript' } } });
    const id = created.body.data!.id as string;
    const invoked = await call('POST', `/functions/${id}/invoke`, { params: { name: 'neo' } });
    expect(invoked).toMatchObject({ status: 200, body: { data: { result: { hello: 'neo', at: 7 } } } });
    const read = await call('GET', `/functions/${id}?include_code=true`);
    expect(read.body.data).toMatchObject({ code: typed, runtime: 'typescript' });
  });

  it('answers a TypeScript syntax error with 400 invalid_function_code, its line and column', async () => {
    const broken = await create({
      runtime: 'typescript',
      code: 'interface P { n: number }\nexport default async (context: P) => {\n  const x: = 1;\n};',
    });
    expect(broken).toMatchObject({
      status: 400,
      body: {
        success: false,
        error: {
          code: 'invalid_function_code',
          message: expect.stringMatching(/^The code does not parse as TypeScript: Unexpected token/),
          details: { field: 'code', line: 3, column: 12 },
        },
      },
    });
  });

  it('refuses TypeScript saved as JavaScript, and a change of runtime alone that the code does not fit', async () => {
    expect((await create({ code: typed, runtime: 'node18' })).status).toBe(400);
    const id = (await create({ code: typed, runtime: 'typescript' })).body.data!.id as string;
    const changed = await call('PUT', `/functions/${id}`, { runtime: 'node18' });
    expect(changed).toMatchObject({ status: 400, body: { error: { code: 'invalid_function_code' } } });
  });

  it('ends a run whose setTimeout waits past its timeout with TimeoutError', async () => {
    const code = 'export default async (): Promise<void> => { await new Promise((r) => setTimeout(r, 60_000)); };';
    const id = (await create({ code, runtime: 'typescript', timeout: 1 })).body.data!.id as string;
    const invoked = await call('POST', `/functions/${id}/invoke`, {});
    expect(invoked).toMatchObject({ status: 500, body: { error: { details: { name: 'TimeoutError' } } } });
  });
});
