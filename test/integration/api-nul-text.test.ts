import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('text PostgreSQL cannot store', () => {
  it('answers a NUL character in a body or a path with 400 in the area shape, not a 500', async () => {
    const { key } = await issueKey(api.database.orm);
    const call = (method: string, path: string, body?: unknown) => callApi(api.url, key, method, path, body);
    const automation = {
      name: 'nul\u0000name',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'ping', args: [] },
    };
    const refused = [
      await call('POST', '/automations', automation),
      await call('GET', '/automations/auto_%00'),
      await call('POST', '/secrets', { name: 'NUL_VALUE', value: 'a', description: 'nul\u0000' }),
      await call('POST', '/functions/func_%00/invoke', { params: { '\u0000': 1 } }),
    ];
    expect(refused.map(({ status, body }) => [status, body.error?.code])).toEqual([
      [400, 'INVALID_REQUEST'],
      [400, 'INVALID_REQUEST'],
      [400, 'INVALID_REQUEST'],
      [400, 'invalid_request'],
    ]);
    expect(refused[3]!.body).toMatchObject({ success: false, error: { message: expect.stringContaining('NUL') } });
  });
});
