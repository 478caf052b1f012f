import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revealCredentials } from '../../src/automations/credentials/credential-store.ts';
import { mapCredentials } from '../../src/automations/credentials/credentials.ts';
import { keyId } from '../../src/crypto/key-id.ts';
import { migrate } from '../../src/orm.ts';
import { rotateMasterKey } from '../../src/cli/rotate-master.ts';
import { api, call, startAutomationsApi, stopAutomationsApi, unique } from '../support/automations-api.ts';
import { createTestDatabase } from '../support/database.ts';
import { testMasters } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { closeServer } from '../support/close-server.ts';

// Channel URLs, webhook header values and price-source URLs are write-only: stored sealed, shown
// masked, and unsealed by the worker only to send.
let receiver: WebhookReceiver;
let prices: { url: string; seen: string[]; close(): Promise<void> };

/** A price API that answers only with its key in the query, and remembers what it was asked. */
async function startKeyedPrices(key: string) {
  const seen: string[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.url ?? '');
    if (!request.url?.includes(`key=${key}`)) return void response.writeHead(403).end();
    response.setHeader('Content-Type', 'application/json');
    response.end(`{"data":{"price":5}}`);
  });
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/price/{asset}?key=${key}`,
    seen,
    close: () => closeServer(server),
  };
}

const secret = (name: string) => `${name}${randomBytes(12).toString('hex')}`;
const sourceKey = secret('srckey');

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  prices = await startKeyedPrices(sourceKey);
  await startAutomationsApi();
  expect((await call('POST', '/secrets', { name: 'HOOK_SECRET', value: 'whsec-credentials-test' })).status).toBe(201);
});
afterAll(async () => {
  await stopAutomationsApi();
  await receiver.close();
  await prices.close();
});

describe('credentials of automations', () => {
  it('appear in no answer of create, get, list, patch or runs, and the receivers still get them', async () => {
    const n = unique();
    const actionPath = `/act-${n}-${secret('actpath')}`;
    const slackPath = `/services/T0${n}/B0${n}/${secret('slack')}`;
    const discordPath = `/api/webhooks/${n}/${secret('discord')}`;
    const channelPath = `/ntf-${n}-${secret('chanpath')}`;
    const actionToken = secret('acttoken');
    const channelToken = secret('chantoken');
    const stored = [sourceKey, actionPath, slackPath, discordPath, channelPath, actionToken, channelToken];
    const answers: unknown[] = [];
    const keep = <T extends { body: unknown }>(answer: T) => (answers.push(answer.body), answer);

    const origin = new URL(receiver.url('/')).origin;
    receiver.answer(actionPath, 404);
    const created = keep(
      await call('POST', '/automations', {
        name: 'credentials',
        trigger: {
          type: 'price',
          asset: 'NEO',
          condition: 'above',
          value: '10',
          currency: 'USD',
          source: { url: prices.url, path: 'data.price' },
          pollInterval: 1,
        },
        action: {
          type: 'webhook',
          url: receiver.url(actionPath),
          headers: { 'X-Receiver-Token': actionToken },
          signingSecret: 'HOOK_SECRET',
        },
        notify: [
          { on: ['failure'], channel: { type: 'slack', url: receiver.url(slackPath) } },
          { on: ['failure'], channel: { type: 'discord', url: receiver.url(discordPath) } },
          {
            on: ['failure'],
            channel: {
              type: 'webhook',
              url: receiver.url(channelPath),
              headers: { Authorization: channelToken },
              signingSecret: 'HOOK_SECRET',
            },
          },
        ],
      }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.action).toEqual({
      type: 'webhook',
      url: `${origin}/${actionPath.slice(1, 11)}…/****`,
      headers: { 'X-Receiver-Token': '****' },
      signingSecret: 'HOOK_SECRET',
    });
    expect(created.body.notify[0].channel.url).toBe(`${origin}/services/T…/****`);
    expect(created.body.trigger.source.url).toBe(`${new URL(prices.url).origin}/price…/****`);

    // The poller reads the price with the key (the source answers 403 without it).
    await until(
      async () => prices.seen.length,
      (count) => count > 0,
    );
    expect(prices.seen[0]).toContain(`key=${sourceKey}`);

    const got = keep(await call('GET', `/automations/${id}`));
    keep(await call('GET', '/automations?limit=100'));
    keep(await call('PATCH', `/automations/${id}`, { name: 'credentials, renamed' }));
    // What GET showed, sent back whole: every mask keeps the value stored behind it.
    const { trigger, action, notify } = got.body;
    const echoed = keep(await call('PATCH', `/automations/${id}`, { trigger, action, notify }));
    expect(echoed.status).toBe(200);
    expect(echoed.body).toMatchObject({ trigger, action, notify });

    const fired = keep(await call('POST', `/automations/${id}/trigger`));
    expect(fired.status).toBe(202);
    const runId = fired.body.run.id as string;
    await api.services.temporal.client.workflow.getHandle(runId).result();
    await until(
      async () => [receiver.at(slackPath), receiver.at(discordPath), receiver.at(channelPath)],
      (told) => told.every((requests) => requests.length > 0),
    );
    const [delivery] = receiver.at(actionPath);
    expect(delivery!.headers['x-receiver-token']).toBe(actionToken);
    expect(receiver.at(channelPath)[0]!.headers.authorization).toBe(channelToken);
    keep(await call('GET', `/automations/${id}/runs`));
    keep(await call('GET', `/automations/${id}/runs/${runId}`));
    keep(await call('GET', `/automations/${id}`));

    const shown = JSON.stringify(answers);
    for (const value of stored) expect(shown).not.toContain(value);
    // Nor are they in clear in the database: the row and the notifications' copies hold masks.
    const rows = await api.database.orm.em
      .fork()
      .getConnection()
      .execute<{ text: string }[]>(
        `select "trigger"::text || "action"::text || "notify"::text as "text" from "automations" where "id" = ?
         union all select "channel"::text from "notifications" where "automation_id" = ?`,
        [id, id],
      );
    for (const value of stored) expect(rows.map((row) => row.text).join()).not.toContain(value);
  });

  it('refuses a mask that is not the mask of the value stored at its place, and one with nothing behind it', async () => {
    const url = receiver.url(`/services/T1/B1/${secret('slack')}`);
    const created = await call('POST', '/automations', {
      name: 'masks',
      status: 'inactive',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'webhook', url, headers: { 'X-A': 'a-value' }, signingSecret: 'HOOK_SECRET' },
    });
    expect(created.status).toBe(201);
    const { action } = created.body;
    const moved = await call('PATCH', `/automations/${created.body.id}`, {
      action: { ...action, headers: { 'X-B': '****' } },
    });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details).toEqual({ field: 'action.headers.X-B' });
    const other = await call('PATCH', `/automations/${created.body.id}`, {
      action: { ...action, url: `${new URL(url).origin}/other/****` },
    });
    expect(other.body.error.details).toEqual({ field: 'action.url' });
    const fresh = await call('POST', '/automations', {
      ...created.body,
      id: undefined,
      createdAt: undefined,
      updatedAt: undefined,
    });
    expect(fresh.status).toBe(400);
  });
});

describe('a masked header', () => {
  it("is refused, naming it, when its webhook's or channel's URL moves to another origin, and the new origin gets nothing", async () => {
    const thief = await startWebhookReceiver();
    try {
      const n = unique();
      const actionPath = `/moved-act-${n}`;
      const channelPath = `/moved-chan-${n}`;
      const actionToken = secret('acttoken');
      const channelToken = secret('chantoken');
      receiver.answer(actionPath, 404);
      const created = await call('POST', '/automations', {
        name: 'masked headers stay home',
        status: 'inactive',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: {
          type: 'webhook',
          url: receiver.url(actionPath),
          headers: { 'X-Receiver-Token': actionToken },
          signingSecret: 'HOOK_SECRET',
        },
        notify: [
          {
            on: ['failure'],
            channel: {
              type: 'webhook',
              url: receiver.url(channelPath),
              headers: { Authorization: channelToken },
              signingSecret: 'HOOK_SECRET',
            },
          },
        ],
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const { action, notify } = created.body;

      const movedAction = await call('PATCH', `/automations/${id}`, {
        action: { ...action, url: thief.url('/steal') },
      });
      expect(movedAction.status).toBe(400);
      expect(movedAction.body.error.details).toEqual({ field: 'action.headers.X-Receiver-Token' });
      const movedChannel = await call('PATCH', `/automations/${id}`, {
        notify: [{ ...notify[0], channel: { ...notify[0].channel, url: thief.url('/steal') } }],
      });
      expect(movedChannel.status).toBe(400);
      expect(movedChannel.body.error.details).toEqual({ field: 'notify.0.channel.headers.Authorization' });
      // The same origin, another path: the mask keeps the value stored.
      const samePlace = await call('PATCH', `/automations/${id}`, {
        action: { ...action, url: receiver.url(`${actionPath}-2`) },
      });
      expect(samePlace.status).toBe(200);
      receiver.answer(`${actionPath}-2`, 404);

      const fired = await call('POST', `/automations/${id}/trigger`);
      expect(fired.status).toBe(202);
      await api.services.temporal.client.workflow.getHandle(fired.body.run.id as string).result();
      await until(
        async () => receiver.at(channelPath),
        (told) => told.length > 0,
      );
      expect(receiver.at(`${actionPath}-2`)[0]!.headers['x-receiver-token']).toBe(actionToken);
      expect(receiver.at(channelPath)[0]!.headers.authorization).toBe(channelToken);
      expect(thief.at('/steal')).toEqual([]);
    } finally {
      await thief.close();
    }
  });
});

describe('migration 0011', () => {
  it('moves the clear credentials of existing automations and notifications into sealed rows, rotated with the rest', async () => {
    const database = await createTestDatabase({ migrated: false });
    try {
      await database.orm.migrator.up({ to: '0010-reconciler' });
      const connection = database.orm.em.getConnection();
      const slack = 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';
      const notify = [{ on: ['failure'], channel: { type: 'slack', url: slack } }];
      const action = {
        type: 'webhook',
        url: 'https://r.example.com/in',
        headers: { 'X-T': 'tok' },
        signingSecret: 'S',
      };
      await connection.execute(`insert into "accounts" values ('acct_m', 'm', now(), now())`);
      await connection.execute(
        `insert into "automations" ("id", "account_id", "name", "status", "trigger_type", "trigger", "action", "notify", "created_at", "updated_at")
          values ('auto_m', 'acct_m', 'm', 'inactive', 'schedule', '{"type":"schedule","cron":"@yearly"}', ?, ?, now(), now())`,
        [JSON.stringify(action), JSON.stringify(notify)],
      );
      await connection.execute(
        `insert into "notifications" ("id", "automation_id", "account_id", "rule", "event", "event_key", "channel", "message", "status", "created_at")
          values ('ntf_m', 'auto_m', 'acct_m', 0, 'failure', 'k', ?, '{}', 'pending', now())`,
        [JSON.stringify(notify[0]!.channel)],
      );

      await expect(migrate(database.orm)).rejects.toThrow(/master key/);
      expect(await migrate(database.orm, testMasters)).toContain('0011-sealed-credentials');

      const [row] = await connection.execute<{ action: unknown; notify: { channel: unknown }[]; channel: unknown }[]>(
        `select "action", "notify", (select "channel" from "notifications" where "id" = 'ntf_m') from "automations"`,
      );
      expect(row!.action).toEqual({ ...action, url: 'https://r.example.com/****', headers: { 'X-T': '****' } });
      const shownSlack = { type: 'slack', url: 'https://hooks.slack.com/services/T…/****' };
      expect(row!.notify[0]!.channel).toEqual(shownSlack);
      expect(row!.channel).toEqual(shownSlack);

      const rotated = { current: Buffer.alloc(32, 7), previous: [testMasters.current] };
      expect(await rotateMasterKey(database.orm.em.fork(), rotated)).toEqual({ rewrapped: 3, left: 0 });
      const ids = await connection.execute<{ master_key_id: string }[]>(
        `select distinct "master_key_id" from "automation_credentials"`,
      );
      expect(ids).toEqual([{ master_key_id: keyId(rotated.current) }]);
      const revealed = await revealCredentials(
        database.orm.em.fork(),
        { current: rotated.current, previous: [] },
        'auto_m',
        (r) => mapCredentials({ action: row!.action, notify: row!.notify } as never, r),
      );
      expect(revealed).toEqual({ action, notify });
    } finally {
      await database.drop();
    }
  });
});
