import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { webUiCodecPath } from '../../src/codec/codec.auth.ts';

const { apiUrl, uiUrl, env } = inject('stack');

let operatorToken: string;
beforeAll(async () => {
  const secrets = JSON.parse(await readFile(join(env.NEOFLOW_DATA_DIR!, 'dev-secrets.json'), 'utf8')) as {
    NEOFLOW_OPERATOR_TOKEN: string;
  };
  operatorToken = secrets.NEOFLOW_OPERATOR_TOKEN;
});

const decode = (endpoint: string, headers: Record<string, string>) =>
  fetch(`${endpoint}/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Namespace': 'default', ...headers },
    body: JSON.stringify({ payloads: [] }),
  });

describe('the Temporal Web UI of `neoflow up` and the codec endpoint', () => {
  it('points the Web UI at the API’s codec endpoint under the capability path the operator token derives', async () => {
    const settings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
    expect(settings.Codec.Endpoint).toBe(`${apiUrl}${webUiCodecPath(operatorToken)}`);
  });

  it('decodes for the Web UI through its capability URL; anyone else needs the token, whatever Origin it claims', async () => {
    expect((await decode(`${apiUrl}${webUiCodecPath(operatorToken)}`, { Origin: uiUrl })).status).toBe(200);
    const plain = `${apiUrl}/v1/codec`;
    expect((await decode(plain, { Origin: uiUrl })).status).toBe(401);
    expect((await decode(plain, {})).status).toBe(401);
    expect((await decode(plain, { Origin: 'http://evil.example' })).status).toBe(401);
    expect((await decode(`${plain}/ui/not-the-capability`, { Origin: uiUrl })).status).toBe(401);
    expect((await decode(plain, { Authorization: `Bearer ${operatorToken}` })).status).toBe(200);
  });

  it('answers the Web UI’s CORS preflight on its capability URL', async () => {
    const response = await fetch(`${apiUrl}${webUiCodecPath(operatorToken)}/decode`, {
      method: 'OPTIONS',
      headers: { Origin: uiUrl, 'Access-Control-Request-Method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(uiUrl);
  });
});
