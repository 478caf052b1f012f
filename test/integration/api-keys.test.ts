import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../src/auth/api-key.entity.ts';
import { roles } from '../../src/auth/roles.ts';
import {
  api,
  call,
  create,
  key as ownerKey,
  keyFor,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';
import { neoflow } from '../support/cli.ts';
import { uniqueAccountName } from '../support/keys.ts';

// Keys managed over HTTP (issue 47): made with a role or scopes, listed, revoked; what each role may do.
beforeAll(() => startAutomationsApi({ runs: false }));
afterAll(stopAutomationsApi);

/** The keys area speaks the general error shape: `{success: false, error}`, lower-case codes. */
const refused = (status: number, code: string, details: Record<string, unknown> = {}) => ({
  status,
  body: { success: false, error: { code, message: expect.any(String), details } },
});

async function makeKey(by: string, request: Record<string, unknown>) {
  const made = await call('POST', '/keys', request, by);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { id: string; key: string; scopes: string[] };
}

describe('a viewer key made over the API', () => {
  it('is answered once, listed without the key, and may read automations and runs but change nothing', async () => {
    const automation = await create();
    const made = await call('POST', '/keys', { name: 'dashboard', role: 'viewer' }, ownerKey);
    expect(made).toEqual({
      status: 201,
      body: {
        id: expect.stringMatching(/^key_/),
        key: expect.stringMatching(/^nf_[A-Za-z0-9_-]{43}$/),
        name: 'dashboard',
        prefix: expect.any(String),
        role: 'viewer',
        scopes: [...roles.viewer],
        createdBy: expect.stringMatching(/^key_/),
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt: null,
      },
    });
    const viewer: string = made.body.key;
    expect(viewer.startsWith(made.body.prefix.replace('…', ''))).toBe(true);

    expect((await call('GET', '/automations', undefined, viewer)).status).toBe(200);
    expect((await call('GET', `/automations/${automation.id}/runs`, undefined, viewer)).status).toBe(200);
    const notOperator = { status: 403, body: { error: expect.objectContaining({ code: 'FORBIDDEN' }) } };
    expect(await call('PATCH', `/automations/${automation.id}`, { status: 'inactive' }, viewer)).toEqual(notOperator);
    expect(await call('PATCH', `/automations/${automation.id}`, { name: 'x' }, viewer)).toEqual(notOperator);
    expect(await call('POST', `/automations/${automation.id}/trigger`, undefined, viewer)).toEqual(notOperator);
    expect(await call('POST', `/automations/${automation.id}/runs/run_x/retry`, undefined, viewer)).toEqual(
      notOperator,
    );
    expect((await call('POST', '/secrets', { name: 'S', value: 'v' }, viewer)).status).toBe(403);
    expect(await call('GET', '/keys', undefined, viewer)).toEqual(
      refused(403, 'forbidden', { requiredScope: 'keys:admin' }),
    );
    expect(await call('POST', '/keys', { name: 'more', role: 'viewer' }, viewer)).toEqual(
      refused(403, 'forbidden', { requiredScope: 'keys:admin' }),
    );

    const listed = await call('GET', '/keys', undefined, ownerKey);
    expect(listed.status).toBe(200);
    const entry = listed.body.keys.find((item: { id: string }) => item.id === made.body.id);
    // Listed as made, but for the key itself (toEqual takes an undefined field for an absent one).
    expect(entry).toEqual({ ...made.body, key: undefined, lastUsedAt: expect.any(String) });
    expect(entry).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(viewer);
    expect(listed.body.keys.map((item: { id: string }) => item.id)).toContain(made.body.createdBy);
  });
});

describe('an operator key', () => {
  it('pauses and fires an automation but cannot change what it does', async () => {
    const automation = await create();
    const { key: operator } = await makeKey(ownerKey, { name: 'on-call', role: 'operator' });
    const paused = await call('PATCH', `/automations/${automation.id}`, { status: 'inactive' }, operator);
    expect(paused).toMatchObject({ status: 200, body: { status: 'inactive' } });
    expect(await call('PATCH', `/automations/${automation.id}`, { name: 'renamed' }, operator)).toEqual({
      status: 403,
      body: { error: expect.objectContaining({ code: 'FORBIDDEN', details: { requiredScope: 'automations:write' } }) },
    });
    expect((await call('POST', `/automations/${automation.id}/trigger`, undefined, operator)).status).toBe(202);
  });
});

describe('refused keys', () => {
  it('answers a revoked and an expired key the same 401 as an unknown one, on the next request', async () => {
    const revoked = await makeKey(ownerKey, { name: 'to-revoke', role: 'viewer' });
    const expired = await makeKey(ownerKey, { name: 'to-expire', role: 'viewer' });
    for (const used of [revoked, expired])
      expect((await call('GET', '/automations', undefined, used.key)).status).toBe(200);

    expect(await call('DELETE', `/keys/${revoked.id}`, undefined, ownerKey)).toEqual({
      status: 200,
      body: { success: true, message: 'Key revoked.' },
    });
    // An expiry is chosen in the future; here it has come.
    await api.database.orm.em
      .fork()
      .nativeUpdate(ApiKey, { id: expired.id }, { expiresAt: new Date(Date.now() - 1000) });

    const unknown = `nf_${'B'.repeat(43)}`;
    for (const path of ['/automations', '/keys', '/account']) {
      const answers = [];
      for (const presented of [unknown, revoked.key, expired.key])
        answers.push(await call('GET', path, undefined, presented));
      expect(answers[0]!.status, path).toBe(401);
      expect(answers[1], path).toEqual(answers[0]);
      expect(answers[2], path).toEqual(answers[0]);
    }
    const listed = await call('GET', '/keys', undefined, ownerKey);
    const ids = listed.body.keys.map((item: { id: string }) => item.id);
    expect(ids).not.toContain(revoked.id);
    expect(ids).toContain(expired.id);
    expect(await call('DELETE', `/keys/${revoked.id}`, undefined, ownerKey)).toEqual(refused(404, 'key_not_found'));
  });
});

describe('what a key may grant', () => {
  it('never grants more than it holds: a 403 names the scopes it lacks', async () => {
    const { key: limited } = await makeKey(ownerKey, { name: 'limited', scopes: ['keys:admin', 'automations:read'] });
    expect(await call('POST', '/keys', { name: 'dev', role: 'developer' }, limited)).toEqual(
      refused(403, 'forbidden', {
        missingScopes: roles.developer.filter((scope) => scope !== 'automations:read'),
      }),
    );
    expect(await call('POST', '/keys', { name: 'x', scopes: ['automations:read', 'secrets:write'] }, limited)).toEqual(
      refused(403, 'forbidden', { missingScopes: ['secrets:write'] }),
    );
    expect((await call('POST', '/keys', { name: 'reader', scopes: ['automations:read'] }, limited)).status).toBe(201);

    const { key: admin } = await makeKey(ownerKey, { name: 'admin', role: 'admin' });
    expect(await call('POST', '/keys', { name: 'owner', role: 'owner' }, admin)).toEqual(
      refused(403, 'forbidden', { missingScopes: ['*'] }),
    );
    expect((await call('POST', '/keys', { name: 'dev', role: 'developer' }, admin)).status).toBe(201);
  });

  it('refuses a body naming both a role and scopes, or neither, or an unknown role, with a 400', async () => {
    for (const request of [
      { name: 'x', role: 'viewer', scopes: ['automations:read'] },
      { name: 'x' },
      { name: 'x', role: 'root' },
      { name: 'x', scopes: ['everything'] },
      { name: 'x', role: 'viewer', expiresAt: '2000-01-01T00:00:00Z' },
    ]) {
      expect((await call('POST', '/keys', request, ownerKey)).status, JSON.stringify(request)).toBe(400);
    }
  });
});

describe('the last key that manages keys', () => {
  it('cannot be revoked (409), nor the last owner key; another account cannot see them (404)', async () => {
    const first = await keyFor(['*'], uniqueAccountName('keys'));
    const [own] = (await call('GET', '/keys', undefined, first)).body.keys;
    expect(await call('DELETE', `/keys/${own.id}`, undefined, first)).toEqual(refused(409, 'last_key_manager'));

    const admin = await makeKey(first, { name: 'admin', role: 'admin' });
    // The admin manages keys too, but the owner key is the account's last `*` key.
    expect(await call('DELETE', `/keys/${own.id}`, undefined, admin.key)).toEqual(refused(409, 'last_key_manager'));
    expect(await call('DELETE', `/keys/${admin.id}`, undefined, ownerKey)).toEqual(refused(404, 'key_not_found'));
    expect((await call('DELETE', `/keys/${admin.id}`, undefined, first)).status).toBe(200);
    expect(await call('DELETE', `/keys/${own.id}`, undefined, first)).toEqual(refused(409, 'last_key_manager'));
    expect((await call('GET', '/keys', undefined, ownerKey)).body.keys).not.toContainEqual(
      expect.objectContaining({ id: own.id }),
    );
  });

  it('keeps the CLI-made key of an account listed, made by no key', async () => {
    const listed = await call('GET', '/keys', undefined, ownerKey);
    expect(listed.body.keys).toContainEqual(
      expect.objectContaining({ name: null, role: null, scopes: ['*'], createdBy: null }),
    );
  });
});

describe('neoflow keys through the API', () => {
  const cli = (args: string[], apiKey: string) =>
    neoflow(['keys', ...args], { NEOFLOW_API_URL: api.url, NEOFLOW_API_KEY: apiKey });

  it('creates a named key with a role, lists it without the key, and revokes it, as the caller may', async () => {
    const { key: admin } = await makeKey(ownerKey, { name: 'cli-admin', role: 'admin' });
    const created = await cli(
      ['create', '--name', 'ci', '--role', 'operator', '--expires', '2999-01-01T00:00:00Z'],
      admin,
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const made = created.stdout.trimEnd().split('\n').at(-1)!;
    expect(made).toMatch(/^nf_[A-Za-z0-9_-]{43}$/);
    const keyId = /key id (key_\S+),/.exec(created.stdout)![1]!;
    expect(created.stdout).toContain('role operator, expires 2999-01-01T00:00:00.000Z');
    expect((await call('GET', '/automations', undefined, made)).status).toBe(200);

    const listed = await cli(['list'], admin);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${keyId}  \\S+  ci  role operator  created `, 'm'));
    expect(listed.stdout).not.toContain(made);

    expect(await cli(['revoke', keyId], admin)).toMatchObject({ code: 0, stdout: `revoked ${keyId}\n` });
    expect((await call('GET', '/automations', undefined, made)).status).toBe(401);
  });

  it('says what the API refused: a scope the caller lacks, a key without keys:admin, a missing name', async () => {
    const { key: developer } = await makeKey(ownerKey, { name: 'cli-dev', role: 'developer' });
    const refusedByRole = await cli(['create', '--name', 'x', '--role', 'viewer'], developer);
    expect(refusedByRole).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^neoflow: create a key: forbidden: /),
    });
    const unnamed = await cli(['create', '--role', 'viewer'], ownerKey);
    expect(unnamed).toMatchObject({ code: 1, stderr: expect.stringContaining('missing --name <name>') });
    const both = await cli(['create', '--name', 'x', '--role', 'viewer', '--scopes', 'audit:read'], ownerKey);
    expect(both).toMatchObject({ code: 1, stderr: expect.stringContaining('exactly one of --role and --scopes') });
  });
});
