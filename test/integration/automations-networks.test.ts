import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reserve } from '../../src/automations/budget/gas-spend.ts';
import { stopAutomationsOfRemovedNetworks } from '../../src/automations/network-removal.control.ts';
import {
  api,
  call,
  contractAction,
  create,
  error,
  get,
  startAutomationsApi,
  stopAutomationsApi,
  yearly,
} from '../support/automations-api.ts';

// An automation's network (issue 45 item 4) over HTTP: the first configured by default, a name
// checked against the configuration, fixed once created, shown on the automation and its runs;
// the account's balance and spend per network; a network removed from the configuration.
// Two networks: `main`, the test chain, and `offline`, a node that never answers.
const networks = () =>
  JSON.stringify([
    { name: 'main', rpc: [inject('neoRpcUrl')] },
    { name: 'offline', rpc: ['http://127.0.0.1:9'] },
  ]);

beforeAll(() => startAutomationsApi({ runs: false, env: { NEOFLOW_NETWORKS: networks() } }));
afterAll(stopAutomationsApi);

const sql = (statement: string, params: unknown[] = []) =>
  api.database.orm.em.getConnection().execute(statement, params);

let accountId: string;
beforeAll(async () => {
  accountId = (await call('GET', '/account')).body.id;
});

/** A run of `automationId` stored as recording a fire stores it, on `network`. */
async function storedRun(automationId: string, network: string) {
  const id = `run_net${Math.random().toString(36).slice(2, 14)}`;
  await sql(
    `insert into "automation_runs" ("id", "automation_id", "account_id", "network", "fire_key", "status", "trigger",
        "dispatched", "started_at")
      values (?, ?, ?, ?, ?, 'running', '{"type":"manual"}', true, now())`,
    [id, automationId, accountId, network, `manual:${id}`],
  );
  return id;
}

describe('an automation on a network', () => {
  it('is on the first configured network when it names none, and on the one it names otherwise', async () => {
    expect((await create()).network).toBe('main');
    const offline = await create({ network: 'offline' });
    expect(offline.network).toBe('offline');
    expect((await get(offline.id)).body.network).toBe('offline');
  });

  it('names a network the deployment has: another is a 400 naming the field and listing the configured ones', async () => {
    const unknown = await call('POST', '/automations', {
      name: 'x',
      network: 'nowhere',
      trigger: yearly,
      action: contractAction,
    });
    expect(unknown).toEqual(error(400, 'INVALID_REQUEST', { field: 'network' }));
    expect(unknown.body.error.message).toContain('"nowhere"');
    expect(unknown.body.error.message).toContain('"main", "offline"');
    const long = await call('POST', '/automations', {
      name: 'x',
      network: 'n'.repeat(33),
      trigger: yearly,
      action: contractAction,
    });
    expect(long).toEqual(error(400, 'INVALID_REQUEST', { field: 'network' }));
  });

  it('keeps its network: PATCH may send the same one again, another is a 400 naming network and changes nothing', async () => {
    const created = await create({ network: 'offline' });
    const same = await call('PATCH', `/automations/${created.id}`, { network: 'offline', name: 'same network' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ network: 'offline', name: 'same network' });
    const moved = await call('PATCH', `/automations/${created.id}`, { network: 'main', name: 'moved' });
    expect(moved).toEqual(error(400, 'INVALID_REQUEST', { field: 'network' }));
    expect(moved.body.error.message).toContain('"offline"');
    expect((await get(created.id)).body).toMatchObject({ network: 'offline', name: 'same network' });
  });

  it('is listed by network with ?network=', async () => {
    const offline = await create({ network: 'offline' });
    const listed = await call('GET', '/automations?network=offline&limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.automations.map(({ id }: { id: string }) => id)).toContain(offline.id);
    expect(listed.body.automations.every(({ network }: { network: string }) => network === 'offline')).toBe(true);
    expect((await call('GET', '/automations?network=nowhere')).body.pagination.total).toBe(0);
    expect(await call('GET', `/automations?network=${'n'.repeat(33)}`)).toEqual(
      error(400, 'INVALID_REQUEST', { field: 'network' }),
    );
  });

  it('shows the network each of its runs ran on, in the list and in one run', async () => {
    const automation = await create({ network: 'offline' });
    const runId = await storedRun(automation.id, 'offline');
    const listed = await call('GET', `/automations/${automation.id}/runs`);
    expect(listed.body.runs).toEqual([expect.objectContaining({ id: runId, network: 'offline' })]);
    expect((await call('GET', `/automations/${automation.id}/runs/${runId}`)).body).toMatchObject({
      id: runId,
      network: 'offline',
    });
  });
});

describe('GET /v1/account per network', () => {
  it("shows the signer's balance and the spend of each network, the first's also where they were before, within the bound of a node that does not answer", async () => {
    const started = Date.now();
    const account = (await call('GET', '/account')).body;
    // The offline node is waited for at most 2 s, the networks at once.
    expect(Date.now() - started).toBeLessThan(4_000);
    const none = { today: '0', total: '0', reserved: '0' };
    expect(account.networks).toEqual([
      { name: 'main', gasBalance: '0', spend: none },
      { name: 'offline', gasBalance: null, spend: none },
    ]);
    expect(account.signer.gasBalance).toBe(account.networks[0].gasBalance);
    expect(account.spend).toEqual(account.networks[0].spend);
    expect(Object.keys(account.signer).sort()).toEqual(['address', 'gasBalance', 'scriptHash']);
  });

  it("counts GAS reserved by an automation on the account's counter of that automation's network only", async () => {
    const automation = await create({ network: 'offline' });
    const runId = await storedRun(automation.id, 'offline');
    const reserved = await reserve(api.database.orm.em.fork(), runId, {
      hash: `0x${'ab'.repeat(32)}`,
      fee: 1_234_500n,
    });
    expect(reserved).toEqual({ kind: 'reserved' });
    const account = (await call('GET', '/account')).body;
    const spent = { today: '0.012345', total: '0.012345', reserved: '0.012345' };
    expect(account.networks).toEqual([
      expect.objectContaining({ name: 'main', spend: { today: '0', total: '0', reserved: '0' } }),
      expect.objectContaining({ name: 'offline', spend: spent }),
    ]);
    expect(account.spend).toEqual({ today: '0', total: '0', reserved: '0' });
    const counters = await sql(`select "network", "total" from "account_gas_spend" where "account_id" = ?`, [
      accountId,
    ]);
    expect(counters).toEqual([{ network: 'offline', total: '1234500' }]);
  });
});

describe('a network removed from the configuration', () => {
  it('moves its active automations to error (network_unavailable, naming it), tells their error rules, and refuses (409) to activate them while it is missing', async () => {
    expect((await call('POST', '/secrets', { name: 'HOOK', value: 'signing key' })).status).toBe(201);
    const notify = [
      { on: ['error'], channel: { type: 'webhook', url: 'http://127.0.0.1:9/told', signingSecret: 'HOOK' } },
    ];
    const [gone, goneInactive, kept] = await Promise.all([
      create({ status: 'active', network: 'offline', notify }),
      create({ status: 'inactive', network: 'offline' }),
      create({ status: 'active', network: 'main' }),
    ]);
    // As when the deployment's configuration no longer names the network these rows were made on.
    await sql(`update "automations" set "network" = 'gone' where "id" in (?, ?)`, [gone.id, goneInactive.id]);

    // What the API does at its start (src/app/main.ts).
    await stopAutomationsOfRemovedNetworks(api.database.orm.em.fork(), api.services.triggerControl);

    const stopped = (await get(gone.id)).body;
    expect(stopped).toMatchObject({ status: 'error', network: 'gone', details: { reason: 'network_unavailable' } });
    expect(stopped.details.message).toContain('"gone"');
    expect((await get(goneInactive.id)).body.status).toBe('inactive');
    expect((await get(kept.id)).body.status).toBe('active');
    const told = await sql(`select "event" from "notifications" where "automation_id" = ?`, [gone.id]);
    expect(told).toEqual([{ event: 'error' }]);
    // Its schedule stops firing as for any move to error.
    const schedule = await api.services.temporal.client.schedule.getHandle(gone.id).describe();
    expect(schedule.state.paused).toBe(true);

    for (const id of [gone.id, goneInactive.id]) {
      const activated = await call('PATCH', `/automations/${id}`, { status: 'active' });
      expect(activated).toEqual(error(409, 'CONFLICT', { network: 'gone' }));
      expect(activated.body.error.message).toContain('"gone"');
    }
    expect((await get(gone.id)).body.status).toBe('error');
    // Made inactive, or deleted, without a check.
    expect((await call('PATCH', `/automations/${gone.id}`, { status: 'inactive' })).status).toBe(200);
  });
});
