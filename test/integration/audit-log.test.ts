import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import { purgeExpiredAuditEvents } from '../../src/recovery/purge-audit-events.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// The audit log (issue 47): the README's walkthrough, each change once with who made it, nothing
// secret in any event, refusals write nothing, one account never sees another's, and no one
// changes an event.
const stack = apiWithWorkerForThisFile();
const rate = { requests: 100_000, windowSeconds: 1 };

/** What must never appear in an event: the secret's value, and every key. */
const canary = `canary-${randomBytes(12).toString('hex')}`;

let owner: { key: string; keyId: string; accountId: string };
let other: { key: string; keyId: string; accountId: string };

async function issue(account: string) {
  const created = await createKey(stack.api.database.orm.em.fork(), testMasters, account, ['*'], { rate });
  return { key: created.key, keyId: created.keyId, accountId: created.accountId };
}

/** An event as listed, read loosely beyond what the tests look at. */
interface Event {
  id: string;
  occurredAt: string;
  action: string;
  resource: { type: string; id: string };
  summary: unknown;
  [field: string]: unknown;
}

interface Sent {
  status: number;
  body: any;
  requestId: string;
}

let sent = 0;
/** A call as the README's curl makes it, with a request id of its own and a user agent. */
async function send(method: string, path: string, body: unknown, key: string, accept = 'application/json') {
  const requestId = `req-audit-${++sent}`;
  const response = await fetch(`${stack.api.url}/v1${path}`, {
    method,
    headers: {
      'X-API-Key': key,
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
      'User-Agent': 'curl/8.14.1',
      Accept: accept,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const parsed: unknown =
    response.headers.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : text;
  return { status: response.status, body: parsed as any, requestId } satisfies Sent;
}

const events = async (key: string, query = '') => {
  const listed = await send('GET', `/audit-events?limit=100${query}`, undefined, key);
  expect(listed.status, JSON.stringify(listed.body)).toBe(200);
  return listed.body.events as Event[];
};

beforeAll(async () => {
  owner = await issue(uniqueAccountName('audit'));
  other = await issue(uniqueAccountName('audit-other'));
});

describe("the README's walkthrough", () => {
  const done: { action: string; resource: { type: string; id: string }; requestId: string }[] = [];

  beforeAll(async () => {
    const { key } = owner;
    const secret = await send('POST', '/secrets', { name: 'GREETING', value: canary }, key);
    expect(secret.status).toBe(201);
    done.push({ action: 'secret.create', resource: { type: 'secret', id: secret.body.id }, ...secret });
    const fn = await send(
      'POST',
      '/functions',
      {
        name: 'greeter',
        runtime: 'node18',
        secrets: ['GREETING'],
        code: 'module.exports = async (context) => ({ greeting: context.secrets.GREETING, to: context.params.name })',
      },
      key,
    );
    expect(fn.status).toBe(201);
    const functionId: string = fn.body.data.id;
    done.push({ action: 'function.create', resource: { type: 'function', id: functionId }, ...fn });
    const invoked = await send('POST', `/functions/${functionId}/invoke`, { params: { name: 'neo' } }, key);
    expect(invoked.status, JSON.stringify(invoked.body)).toBe(200);
    expect(invoked.body.data.result.greeting).toBe(canary);
    done.push({
      action: 'function.invoke',
      resource: { type: 'execution', id: invoked.body.data.execution.id },
      ...invoked,
    });
    const automation = await send(
      'POST',
      '/automations',
      {
        name: 'every minute',
        trigger: { type: 'schedule', cron: '* * * * *' },
        action: { type: 'function', functionId, parameters: { name: 'automation' } },
      },
      key,
    );
    expect(automation.status).toBe(201);
    const automationId: string = automation.body.id;
    done.push({ action: 'automation.create', resource: { type: 'automation', id: automationId }, ...automation });
    const fired = await send('POST', `/automations/${automationId}/trigger`, {}, key);
    expect(fired.status).toBe(202);
    done.push({ action: 'automation.fire', resource: { type: 'run', id: fired.body.run.id }, ...fired });
  });

  it('records each mutation exactly once, with its actor, request id and resource, after the key the CLI made', async () => {
    const listed = await events(owner.key);
    const actor = { type: 'key', keyId: owner.keyId, name: null, role: null, scopes: ['*'] };
    const expected: unknown[] = done.map(({ action, resource, requestId }): unknown =>
      expect.objectContaining({ action, resource, requestId, actor, ip: expect.any(String), userAgent: 'curl/8.14.1' }),
    );
    const cli = expect.objectContaining({
      action: 'key.create',
      resource: { type: 'key', id: owner.keyId },
      actor: { type: 'cli', keyId: null, name: null, role: null, scopes: null },
    });
    // Newest first: the walkthrough backwards, then the key it started with.
    expect(listed).toEqual([...expected.reverse(), cli]);
    expect(listed.find((event) => event.action === 'function.create')!.summary).toEqual({
      // A create sets every field, defaults included; code, environment and the rest are named, never shown.
      fields: ['name', 'code', 'runtime', 'timeout', 'environment', 'secrets', 'tags', 'allowedHosts'],
      values: { name: 'greeter', runtime: 'node18', timeout: 30, version: 1 },
    });
  });

  it('holds no secret value, credential or key in any event, listed or exported', async () => {
    const listed = JSON.stringify(await events(owner.key));
    const exported = await send('GET', '/audit-events', undefined, owner.key, 'application/x-ndjson');
    expect(exported.status).toBe(200);
    for (const text of [listed, exported.body as string]) {
      expect(text).not.toContain(canary);
      expect(text).not.toContain(owner.key);
      expect(text).not.toContain('module.exports');
      expect(text).not.toMatch(/nf_[A-Za-z0-9_-]{43}/);
    }
  });

  it('exports the same events as one JSON line each, and pages through them by cursor', async () => {
    const listed = await events(owner.key);
    const exported = await send('GET', '/audit-events', undefined, owner.key, 'application/x-ndjson');
    const lines = (exported.body as string).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(listed);

    const paged: Event[] = [];
    for (let after = ''; ;) {
      const page = await send('GET', `/audit-events?limit=2${after}`, undefined, owner.key);
      paged.push(...(page.body.events as Event[]));
      if (!page.body.pagination.next) break;
      after = `&after=${page.body.pagination.next}`;
    }
    expect(paged).toEqual(listed);
    expect((await events(owner.key, '&action=secret.create')).map((event) => event.action)).toEqual(['secret.create']);
    const since = encodeURIComponent(listed[0]!.occurredAt);
    expect((await events(owner.key, `&since=${since}`)).length).toBeGreaterThanOrEqual(1);
    expect(await events(owner.key, `&until=${encodeURIComponent('2000-01-01T00:00:00Z')}`)).toEqual([]);
    expect((await send('GET', '/audit-events?after=bm9wZQ', undefined, owner.key)).status).toBe(400);
  });
});

describe('what writes no event', () => {
  it('a request refused by validation, or by a missing resource', async () => {
    const before = await events(other.key);
    expect((await send('POST', '/secrets', { name: '1bad', value: canary }, other.key)).status).toBe(400);
    expect((await send('POST', '/functions', { name: 'x', runtime: 'node18', code: '(' }, other.key)).status).toBe(400);
    expect((await send('POST', '/automations', { name: 'x' }, other.key)).status).toBe(400);
    expect((await send('DELETE', '/secrets/sec_missing', undefined, other.key)).status).toBe(404);
    expect(await events(other.key)).toEqual(before);
  });
});

describe('who may read events', () => {
  it("never lists another account's events, by any filter", async () => {
    const mine = await events(owner.key);
    const theirs = await events(other.key);
    expect(theirs.map((event) => event.action)).toEqual(['key.create']);
    expect(theirs[0]!.resource.id).toBe(other.keyId);
    const secretId = mine.find((event) => event.action === 'secret.create')!.resource.id;
    expect(await events(other.key, `&resourceId=${secretId}`)).toEqual([]);
    expect(await events(other.key, `&actor=${owner.keyId}`)).toEqual([]);
  });

  it('refuses a key without audit:read with 403, and a developer too', async () => {
    for (const role of ['viewer', 'developer']) {
      const made = await send('POST', '/keys', { name: `${role} key`, role }, owner.key);
      expect(made.status).toBe(201);
      const refused = await send('GET', '/audit-events', undefined, made.body.key);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { requiredScope: 'audit:read' } });
      const recorded = await events(owner.key, `&resourceId=${made.body.id}`);
      expect(recorded).toEqual([
        expect.objectContaining({
          action: 'key.create',
          summary: { values: { name: `${role} key`, role, prefix: made.body.prefix } },
        }),
      ]);
    }
  });
});

describe('an event cannot be changed or deleted', () => {
  it('has no route that changes or deletes it', async () => {
    const [event] = await events(owner.key);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const tried = await send(method, `/audit-events/${event!.id}`, { action: 'nothing' }, owner.key);
      expect([404, 405]).toContain(tried.status);
      expect((await send(method, '/audit-events', {}, owner.key)).status).toBe(405);
    }
    expect((await events(owner.key))[0]).toEqual(event);
  });

  it('is refused by the database to any statement but the retention purge', async () => {
    const connection = stack.api.database.orm.em.getConnection();
    await expect(connection.execute(`update "audit_events" set "action" = 'x'`)).rejects.toThrow(/cannot be changed/);
    await expect(connection.execute(`delete from "audit_events"`)).rejects.toThrow(/cannot be changed/);
    await connection.execute(
      `insert into "audit_events" ("account_id", "occurred_at", "actor_type", "action", "resource_type", "resource_id")
       values (?, now() - interval '400 days', 'system', 'secret.delete', 'secret', 'sec_old')`,
      [owner.accountId],
    );
    const kept = (await events(owner.key)).length;
    expect(await purgeExpiredAuditEvents(stack.api.database.orm.em.fork(), 365)).toBe(1);
    expect(await events(owner.key, '&resourceId=sec_old')).toEqual([]);
    expect((await events(owner.key)).length).toBe(kept - 1);
  });
});

describe('refused keys', () => {
  it('records a revoked key once a minute, by its prefix, in its account', async () => {
    const made = await send('POST', '/keys', { name: 'leaked', role: 'viewer' }, owner.key);
    expect((await send('DELETE', `/keys/${made.body.id}`, undefined, owner.key)).status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await send('GET', '/account', undefined, made.body.key)).status).toBe(401);
    }
    const refused = await events(owner.key, '&action=auth.refused');
    expect(refused).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'anonymous', keyId: null }),
        resource: { type: 'key', id: made.body.id },
        summary: { values: { prefix: made.body.prefix, reason: 'revoked' } },
      }),
    ]);
    expect(JSON.stringify(refused)).not.toContain(made.body.key);
    expect((await events(owner.key, `&resourceId=${made.body.id}`)).map((event) => event.action)).toEqual([
      'auth.refused',
      'key.revoke',
      'key.create',
    ]);
  });
});
