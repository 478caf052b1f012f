import { randomBytes } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.ts';
import { issueKey } from '../support/keys.ts';

// The signers area over HTTP: an account's keys by where they live, never their material.
let api: TestApi;
let key: string;
beforeAll(async () => {
  // A task queue no worker polls: a remote key's probe is never answered.
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: `signers-${randomBytes(4).toString('hex')}` });
  key = (await issueKey(api.database.orm)).key;
});
afterAll(() => api.close());

interface Body {
  [field: string]: unknown;
  error?: { code: string; message: string; details: Record<string, unknown> };
}

const request = async (method: string, path: string, body?: unknown, apiKey = key) => {
  const response = await fetch(`${api.url}/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Body, text };
};

const contractAction = { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'ping', args: [] };
const automation = (action: object, name = 'signing') => ({
  name,
  status: 'inactive',
  trigger: { type: 'schedule', cron: '@yearly' },
  action,
});

describe('POST /v1/signers', () => {
  it("imports a WIF: answers neon-js's address and public key, and neither the WIF nor its hex in any answer", async () => {
    const imported = new wallet.Account(wallet.generatePrivateKey());
    const created = await request('POST', '/signers', { name: 'operator', type: 'import', privateKey: imported.WIF });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^sgn_[A-Za-z0-9_-]{24}$/),
      name: 'operator',
      type: 'import',
      address: imported.address,
      scriptHash: `0x${imported.scriptHash}`,
      publicKey: imported.publicKey,
      backend: null,
      budget: null,
      networks: [{ name: 'default', gasBalance: '0', spend: { today: '0', total: '0', reserved: '0' } }],
    });
    const answers = [
      created.text,
      (await request('GET', `/signers/${created.body.id as string}`)).text,
      (await request('GET', '/signers')).text,
      (await request('GET', '/account')).text,
    ];
    for (const text of answers) {
      expect(text).not.toContain(imported.WIF);
      expect(text.toLowerCase()).not.toContain(imported.privateKey.toLowerCase());
    }
  });

  it('imports the same key given as hex, with or without 0x, as the address neon-js derives', async () => {
    const imported = new wallet.Account(wallet.generatePrivateKey());
    for (const [name, privateKey] of [
      ['hex', imported.privateKey],
      ['prefixed', `0x${imported.privateKey.toUpperCase()}`],
    ] as const) {
      const created = await request('POST', '/signers', { name, type: 'import', privateKey });
      expect(created.status).toBe(201);
      expect(created.body.address).toBe(imported.address);
      expect(created.text.toLowerCase()).not.toContain(imported.privateKey.toLowerCase());
    }
  });

  it('generates a new key with its own address', async () => {
    const created = await request('POST', '/signers', { name: 'hot', type: 'generated', budget: { perDay: '2' } });
    expect(created.status).toBe(201);
    const { address } = (await request('GET', '/account')).body.signer as { address: string };
    expect(created.body).toMatchObject({ type: 'generated', budget: { perDay: '2' } });
    expect(created.body.address).not.toBe(address);
  });

  it('refuses a key that is not a secp256r1 private key with a 400 naming privateKey, without quoting it', async () => {
    for (const privateKey of ['not-a-key', '00'.repeat(32), 'ff'.repeat(32), 'ab'.repeat(31), 42]) {
      const refused = await request('POST', '/signers', { name: 'bad', type: 'import', privateKey });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'privateKey' } });
      if (typeof privateKey === 'string') expect(refused.text).not.toContain(privateKey);
    }
  });

  it('refuses a taken name (409), a name shaped like an id, an unknown type and a token named twice (400)', async () => {
    await request('POST', '/signers', { name: 'twice', type: 'generated' });
    const taken = await request('POST', '/signers', { name: 'twice', type: 'generated' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'conflict', details: { field: 'name' } });
    const cases: [object, string][] = [
      [{ name: 'sgn_mine', type: 'generated' }, 'name'],
      [{ name: 'default', type: 'vault' }, 'type'],
      [{ name: 'hsm', type: 'pkcs11', tokenLabel: 't', slotLabel: 's', keyLabel: 'k' }, 'tokenLabel'],
      [{ name: 'kms', type: 'aws-kms' }, 'keyId'],
    ];
    for (const [body, field] of cases) {
      const refused = await request('POST', '/signers', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error!.details).toEqual({ field });
    }
  });

  it('answers 503 signer_unavailable when no worker probes a remote key in time, and stores nothing', async () => {
    const refused = await request('POST', '/signers', { name: 'kms', type: 'aws-kms', keyId: 'alias/neo' });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({ code: 'signer_unavailable' });
    const listed = (await request('GET', '/signers')).body.signers as { name: string }[];
    expect(listed.map((signer) => signer.name)).not.toContain('kms');
  });
});

describe('automations name their signer', () => {
  it('signs with the default signer when the action names none, and shows its id', async () => {
    const { id: defaultId } = ((await request('GET', '/signers')).body.signers as { id: string; name: string }[]).find(
      (signer) => signer.name === 'default',
    )!;
    const created = await request('POST', '/automations', automation(contractAction));
    expect(created.status).toBe(201);
    expect(created.body.action).toEqual({ ...contractAction, signer: defaultId });
  });

  it('takes a signer by name or by id, and refuses an unknown one with a 400 naming action.signer', async () => {
    const signer = await request('POST', '/signers', { name: 'by-ref', type: 'generated' });
    const id = signer.body.id as string;
    for (const ref of ['by-ref', id]) {
      const created = await request('POST', '/automations', automation({ ...contractAction, signer: ref }));
      expect(created.status).toBe(201);
      expect((created.body.action as { signer: string }).signer).toBe(id);
    }
    for (const action of [
      { ...contractAction, signer: 'nobody' },
      { type: 'webhook', url: 'https://example.com/hook', signingSecret: 'HOOK', signer: 'by-ref' },
    ]) {
      const refused = await request('POST', '/automations', automation(action));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'action.signer' } });
    }
  });

  it('refuses to delete a signer an automation names (409 naming it), then deletes it once none does', async () => {
    const signer = await request('POST', '/signers', { name: 'in-use', type: 'generated' });
    const id = signer.body.id as string;
    const named = await request('POST', '/automations', automation({ ...contractAction, signer: 'in-use' }));
    const refused = await request('DELETE', `/signers/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'signer_in_use', details: { automations: [named.body.id] } });

    const moved = await request('PATCH', `/automations/${named.body.id as string}`, { action: contractAction });
    expect(moved.status).toBe(200);
    expect((await request('DELETE', `/signers/${id}`)).status).toBe(200);
    expect((await request('GET', `/signers/${id}`)).status).toBe(404);
  });
});

describe('scopes', () => {
  it('lets signers:read read, signers:write create and delete, * do both, and no other scope either', async () => {
    const account = (await issueKey(api.database.orm)).account;
    const keyWith = async (scopes: Parameters<typeof issueKey>[1]) =>
      (await issueKey(api.database.orm, scopes, account)).key;
    const [reader, writer, other] = await Promise.all([
      keyWith(['signers:read']),
      keyWith(['signers:write']),
      keyWith(['automations:write', 'secrets:write']),
    ]);
    expect((await request('GET', '/signers', undefined, reader)).status).toBe(200);
    const forbidden = await request('POST', '/signers', { name: 'r', type: 'generated' }, reader);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error!.details).toEqual({ requiredScope: 'signers:write' });
    expect((await request('POST', '/signers', { name: 'w', type: 'generated' }, writer)).status).toBe(201);
    expect((await request('GET', '/signers', undefined, writer)).status).toBe(403);
    expect((await request('GET', '/signers', undefined, other)).status).toBe(403);
    expect((await request('POST', '/signers', { name: 'o', type: 'generated' }, other)).status).toBe(403);
  });
});
