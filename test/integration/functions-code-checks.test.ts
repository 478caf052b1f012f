import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeChecks } from '../../src/metrics/metrics.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

// Issue 44, item 3: code is parsed at save only when the code or its runtime changes.
let api: TestApi;
let call: ApiCall;
beforeAll(async () => {
  api = await startTestApi();
  call = testApi(api.url, (await issueKey(api.database.orm)).key);
});
afterAll(() => api.close());

const checks = async () => (await codeChecks.get()).values.reduce((sum, { value }) => sum + value, 0);

let counter = 0;
async function createTypeScript(code: string) {
  const created = await call('POST', '/functions', { name: `checks-${++counter}`, code, runtime: 'typescript' });
  expect(created.status).toBe(201);
  return created.body.data!.id as string;
}

describe('code parsed at save', () => {
  it('parses nothing for a PUT that changes neither code nor runtime, whatever else it names', async () => {
    const code = 'export default async (context: { params: { n: number } }): Promise<number> => context.params.n;';
    const id = await createTypeScript(code);
    const before = await checks();
    for (const body of [
      { runtime: 'typescript' },
      { code },
      { code, runtime: 'typescript' },
      { runtime: 'typescript', timeout: 5, tags: ['unchanged-code'] },
    ]) {
      expect((await call('PUT', `/functions/${id}`, body)).status).toBe(200);
    }
    expect(await checks()).toBe(before);
    // A change of code is parsed, once.
    expect((await call('PUT', `/functions/${id}`, { code: code.replace('n;', 'n + 1;') })).status).toBe(200);
    expect(await checks()).toBe(before + 1);
  });
});
