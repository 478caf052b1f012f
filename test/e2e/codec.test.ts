import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const { apiUrl, uiUrl, env } = inject('stack');

const decode = (headers: Record<string, string>) =>
  fetch(`${apiUrl}/v1/codec/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify({ payloads: [] }),
  });

describe('the Temporal Web UI of `neoflow up` and the codec endpoint', () => {
  it('points the Web UI at the API’s codec endpoint', async () => {
    const settings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
    expect(settings.Codec.Endpoint).toBe(`${apiUrl}/v1/codec`);
  });

  it('decodes for the Web UI’s origin without a token, for anyone else only with the operator token', async () => {
    expect((await decode({ Origin: uiUrl })).status).toBe(200);
    expect((await decode({})).status).toBe(401);
    expect((await decode({ Origin: 'http://evil.example' })).status).toBe(401);
    const secrets = JSON.parse(await readFile(join(env.NEOFLOW_DATA_DIR!, 'dev-secrets.json'), 'utf8')) as {
      NEOFLOW_OPERATOR_TOKEN: string;
    };
    expect((await decode({ Authorization: `Bearer ${secrets.NEOFLOW_OPERATOR_TOKEN}` })).status).toBe(200);
  });

  it('answers the Web UI’s CORS preflight', async () => {
    const response = await fetch(`${apiUrl}/v1/codec/decode`, {
      method: 'OPTIONS',
      headers: { Origin: uiUrl, 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(uiUrl);
  });
});
