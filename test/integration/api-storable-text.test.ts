import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient } from '../support/automations.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';

let api: TestApi;
let key: string;
let call: ApiCall;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await issueKey(api.database.orm));
  call = testApi(api.url, key);
});
afterAll(() => api.close());

const contractAction = { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'ping', args: [] };
const yearly = { type: 'schedule', cron: '@yearly' };

describe('text PostgreSQL cannot store', () => {
  it('answers a NUL character in a body or a path with 400 in the area shape, not a 500', async () => {
    const automation = { name: 'nul\u0000name', trigger: yearly, action: contractAction };
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

  it('answers a lone surrogate in any stored field of any area with 400 in the area shape, not a 500', async () => {
    const lone = '\ud800';
    const client = automationsClient(api.url, key);
    const functionId = await client.deploy('module.exports = async () => 1');
    const automationId = await client.create({ name: 'surrogates', trigger: yearly, action: contractAction });
    const fn = { name: 'lone', code: 'module.exports = async () => 1', runtime: 'node18' };
    const byField: [string, string, string, unknown][] = [
      ['function description', 'POST', '/functions', { ...fn, description: lone }],
      ['function tags', 'POST', '/functions', { ...fn, tags: [`a${lone}`] }],
      ['function environment value', 'POST', '/functions', { ...fn, environment: { A: lone } }],
      ['function code', 'PUT', `/functions/${functionId}`, { code: `// ${lone}\nmodule.exports = async () => 1` }],
      ['environment replaced', 'PUT', `/functions/${functionId}/environment`, { A: `x${lone}y` }],
      ['granted secret name', 'PUT', `/functions/${functionId}/secrets`, { secrets: [lone] }],
      ['invoke params', 'POST', `/functions/${functionId}/invoke`, { params: { text: lone } }],
      ['invoke param key', 'POST', `/functions/${functionId}/invoke`, { params: { [`\udc00`]: 1 } }],
      ['automation name', 'POST', '/automations', { name: lone, trigger: yearly, action: contractAction }],
      [
        'action parameters',
        'PATCH',
        `/automations/${automationId}`,
        { action: { type: 'function', functionId, parameters: { nested: [{ deep: lone }] } } },
      ],
      [
        'blockchain filter',
        'PATCH',
        `/automations/${automationId}`,
        { trigger: { type: 'blockchain', scriptHash: contractAction.scriptHash, filter: { from: lone } } },
      ],
      [
        'contract args',
        'PATCH',
        `/automations/${automationId}`,
        { action: { ...contractAction, args: [{ type: 'String', value: lone }] } },
      ],
      ['secret value', 'POST', '/secrets', { name: 'LONE', value: `pre${lone}` }],
      ['secret description', 'POST', '/secrets', { name: 'LONE', value: 'v', description: lone }],
    ];
    for (const [field, method, path, body] of byField) {
      const { status, body: answer } = await call(method, path, body);
      const area = path.split('/')[1];
      const code = area === 'functions' ? 'invalid_request' : 'INVALID_REQUEST';
      expect([field, status, answer.error?.code, answer.error?.message]).toEqual([
        field,
        400,
        code,
        expect.stringContaining('surrogate'),
      ]);
    }
  });

  it('answers a lone surrogate encoded in a path or a query string with 400 in the area shape', async () => {
    const encoded = '%ED%A0%80';
    const refused = [
      await call('GET', `/functions/func_${encoded}`),
      await call('GET', `/functions?tag=${encoded}`),
      await call('GET', `/secrets/sec_${encoded}`),
      await call('GET', `/automations?status=${encoded}`),
      await call('GET', `/automations/auto_x/runs?${encoded}=1`),
    ];
    expect(refused.map(({ status, body }) => [status, body.error?.code])).toEqual([
      [400, 'invalid_request'],
      [400, 'invalid_request'],
      [400, 'INVALID_REQUEST'],
      [400, 'INVALID_REQUEST'],
      [400, 'INVALID_REQUEST'],
    ]);
  });
});
