import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { automationsClient, type Loose } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Inbound webhooks (issue 49) and the changes of their automations: a pause, a token rotation or
// a delete that commits while a delivery is between its hook's lookup and its run's insert, and
// the rate buckets of what is deleted.
const running = apiWithWorkerForThisFile({ hostWorker: false });

let client: ReturnType<typeof automationsClient>;
let functionId: string;
beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  functionId = await client.deploy('module.exports = async () => 1;');
});

const fork = () => running.api.database.orm.em.fork();

async function webhookAutomation(owner = client, action: Loose = { type: 'function', functionId }) {
  const trigger = { type: 'webhook', auth: { type: 'token' } };
  const created = await owner.call('POST', '/automations', { name: 'hook', trigger, action });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; trigger: { url: string; token: string } };
}

async function deliver(url: string, token: string) {
  const response = await fetch(`${running.api.url}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });
  return { status: response.status, body: (await response.json()) as Loose };
}

/** Statements waiting on a lock that the backend `pid` holds, read outside its transaction. */
async function waitingOn(pid: number) {
  const [row] = await fork().execute<{ waiting: number }[]>(
    `select count(*)::int as "waiting" from pg_stat_activity where ? = any(pg_blocking_pids(pid))`,
    [pid],
  );
  return row!.waiting;
}

/**
 * Delivers while a connection of this file holds, uncommitted, the rate bucket `bucket`: the
 * delivery has found its hook and waits to take a token from it. Then `change` is made and
 * answered, and the bucket released: the delivery's run is recorded, or not, after the change
 * committed. The bucket is written with the reference checks off for its transaction, so that it
 * locks no automation or account row (migration 0039): the change does not wait on it.
 */
async function deliverAcross(bucket: string, hook: { url: string; token: string }, change: () => Promise<unknown>) {
  const holder = new pg.Client({ connectionString: running.api.database.url });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('set local session_replication_role = replica');
    await holder.query(
      `insert into "hook_rate_buckets" ("key_id", "tokens", "refilled_at", "allowed") values ($1, 100, now(), true)`,
      [bucket],
    );
    const { rows } = await holder.query<{ pid: number }>('select pg_backend_pid() as "pid"');
    const delivery = deliver(hook.url, hook.token);
    expect(
      await until(
        () => waitingOn(rows[0]!.pid),
        (waiting) => waiting > 0,
        30_000,
        20,
      ),
    ).toBe(1);
    await change();
    await holder.query('rollback');
    return await delivery;
  } finally {
    await holder.end();
  }
}

describe('a change committed between a delivery finding its hook and recording its run', () => {
  it('a pause: the delivery answers 409 and records nothing', async () => {
    const created = await webhookAutomation();
    const paused = async () => {
      const answer = await client.call('PATCH', `/automations/${created.id}`, { status: 'inactive' });
      expect(answer.status).toBe(200);
    };
    const delivered = await deliverAcross(`automation:${created.id}`, created.trigger, paused);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(409);
    expect(await client.runs(created.id)).toEqual([]);
  });

  it('a token rotation: the old token answers 404 and records nothing, the new one records', async () => {
    const created = await webhookAutomation();
    let token = '';
    const rotated = async () => {
      const answer = await client.call('POST', `/automations/${created.id}/hook-token`);
      expect(answer.status).toBe(200);
      token = answer.body.token as string;
    };
    const delivered = await deliverAcross(`automation:${created.id}`, created.trigger, rotated);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(404);
    expect(await client.runs(created.id)).toEqual([]);
    expect((await deliver(created.trigger.url, token)).status).toBe(202);
    expect(await client.runs(created.id)).toHaveLength(1);
  });

  it("a delete, before the delivery makes its automation's bucket: 404, no run", async () => {
    const created = await webhookAutomation();
    const deleted = async () => expect((await client.call('DELETE', `/automations/${created.id}`)).status).toBe(200);
    const delivered = await deliverAcross(`automation:${created.id}`, created.trigger, deleted);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(404);
    expect(await runRows(created.id)).toBe(0);
  });

  it("a delete, after the delivery took its automation's token: 404, no run", async () => {
    // A fresh account: its bucket is made by this delivery, which waits on it.
    const issued = await issueKey(running.api.database.orm);
    const owner = automationsClient(running.api.url, issued.key);
    const created = await webhookAutomation(owner, {
      type: 'function',
      functionId: await owner.deploy('module.exports = async () => 1;'),
    });
    const deleted = async () => expect((await owner.call('DELETE', `/automations/${created.id}`)).status).toBe(200);
    const delivered = await deliverAcross(`account:${issued.accountId}`, created.trigger, deleted);
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(404);
    expect(await runRows(created.id)).toBe(0);
  });
});

const runRows = async (automationId: string) => {
  const [row] = await fork().execute<{ count: number }[]>(
    `select count(*)::int as "count" from "automation_runs" where "automation_id" = ?`,
    [automationId],
  );
  return row!.count;
};

const bucketsOf = async (keys: string[]) =>
  (await fork().execute<{ key_id: string }[]>(`select "key_id" from "hook_rate_buckets" where "key_id" in (?)`, [keys]))
    .map((row) => row.key_id)
    .sort();

describe('the rate buckets of hooks', () => {
  it('go with their automation when it is deleted, and with their account', async () => {
    const issued = await issueKey(running.api.database.orm);
    const owner = automationsClient(running.api.url, issued.key);
    const action = { type: 'function', functionId: await owner.deploy('module.exports = async () => 1;') };
    const [first, second] = [await webhookAutomation(owner, action), await webhookAutomation(owner, action)];
    for (const { trigger } of [first, second]) expect((await deliver(trigger.url, trigger.token)).status).toBe(202);
    const [account, firstBucket, secondBucket] = [
      `account:${issued.accountId}`,
      `automation:${first.id}`,
      `automation:${second.id}`,
    ];
    const keys = [account, firstBucket, secondBucket];
    expect(await bucketsOf(keys)).toEqual([...keys].sort());

    expect((await owner.call('DELETE', `/automations/${first.id}`)).status).toBe(200);
    expect(await bucketsOf(keys)).toEqual([account, secondBucket].sort());
    await fork().execute(`delete from "accounts" where "id" = ?`, [issued.accountId]);
    expect(await bucketsOf(keys)).toEqual([]);
  });
});
