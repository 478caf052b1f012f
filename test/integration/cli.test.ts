import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { admit } from '../../src/auth/admission.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { freePort } from '../../src/net/ports.ts';
import { neoflow } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { keysCliEnv } from '../support/keys.ts';

let db: TestDatabase;
const anyRate = { requests: 100, windowSeconds: 10 };
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

describe('neoflow keys', () => {
  it('creates a key, prints it alone on the last line, lists and revokes it', async () => {
    const env = keysCliEnv(db.url);
    const created = await neoflow(
      ['keys', 'create', '--account', 'acme', '--scopes', 'functions:read,secrets:read'],
      env,
    );
    expect(created.code).toBe(0);
    const key = created.stdout.trimEnd().split('\n').at(-1)!;
    expect(key).toMatch(/^nf_[A-Za-z0-9_-]{43}$/);
    const caller = (await admit(db.orm.em.fork(), key, anyRate))?.caller;
    expect(caller?.scopes).toEqual(['functions:read', 'secrets:read']);

    const listed = await neoflow(['keys', 'list', '--account', 'acme'], env);
    expect(listed.stdout).toContain(caller!.keyId);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).toContain('active');

    expect((await neoflow(['keys', 'revoke', caller!.keyId], env)).code).toBe(0);
    expect(await admit(db.orm.em.fork(), key, anyRate)).toBeNull();
    expect((await neoflow(['keys', 'list', '--account', 'acme'], env)).stdout).toContain('revoked');
  });

  it('refuses an unknown scope and an unknown key id with one line each', async () => {
    const badScope = await neoflow(['keys', 'create', '--account', 'acme', '--scopes', 'root'], {
      DATABASE_URL: db.url,
    });
    expect(badScope).toMatchObject({ code: 1, stderr: expect.stringMatching(/^neoflow: unknown scope "root"/) });
    const badId = await neoflow(['keys', 'revoke', 'key_nope'], { DATABASE_URL: db.url });
    expect(badId).toMatchObject({ code: 1, stderr: 'neoflow: no key with id key_nope\n' });
  });
});

describe('bad configuration', () => {
  it('stops on an invalid DATABASE_URL with one line naming it and no stack', async () => {
    const result = await neoflow(['migrate'], { DATABASE_URL: 'not a url' });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^neoflow: DATABASE_URL is invalid/);
  });

  it('stops when DATABASE_URL names a server that does not answer', async () => {
    const port = await freePort();
    const result = await neoflow(['migrate'], { DATABASE_URL: `postgres://neoflow:hunter2@127.0.0.1:${port}/neoflow` });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^neoflow: cannot connect to the service named by DATABASE_URL/);
    expect(result.stderr).not.toContain('hunter2');
  });

  it('stops `neoflow up` on a port in use, naming the port and its variable', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolvePort) =>
      blocker.listen(0, '127.0.0.1', () => resolvePort((blocker.address() as { port: number }).port)),
    );
    try {
      const result = await neoflow(['up'], { NEOFLOW_API_PORT: String(port) });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toBe(
        `neoflow: port ${port} is already in use: free it or set NEOFLOW_API_PORT to another port\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('stops `neoflow up` when an external service does not answer, naming its variable', async () => {
    const result = await neoflow(['up'], {
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      NEO_RPC_URL: inject('neoRpcUrl'),
      NEOFLOW_API_PORT: String(await freePort()),
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/^neoflow: cannot connect to the service named by TEMPORAL_ADDRESS: .+\n$/);
    expect(result.stdout).toMatch(/postgres\s+ok\s+external, from DATABASE_URL/);
  });

  it('applies every migration to an empty database, in order, and none a second time', async () => {
    const empty = await createTestDatabase({ migrated: false });
    try {
      const first = await neoflow(['migrate'], { DATABASE_URL: empty.url });
      expect(first).toMatchObject({ code: 0, stdout: `applied ${migrations.map(({ name }) => name).join(', ')}\n` });
      const second = await neoflow(['migrate'], { DATABASE_URL: empty.url });
      expect(second).toMatchObject({ code: 0, stdout: 'no pending migrations\n' });
    } finally {
      await empty.drop();
    }
  });
});
