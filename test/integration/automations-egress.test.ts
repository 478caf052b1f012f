import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { pricePollerId } from '../../src/automations/price/price-source-key.ts';
import { automationsClient } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { startPriceServer } from '../support/price-server.ts';
import { apiWithWorkerForThisFile } from '../support/worker.ts';

// Nothing inside is allowed: the defaults of a deployment, not the tests' loopback price sources.
const running = apiWithWorkerForThisFile({ env: { NEOFLOW_EGRESS_ALLOW: '', NEOFLOW_TRIGGER_FAILURES: '3' } });
let client: ReturnType<typeof automationsClient>;
let functionId: string;

beforeAll(async () => {
  client = automationsClient(running.api.url, (await issueKey(running.api.database.orm)).key);
  functionId = await client.deploy('module.exports = async (context) => context.params;');
});

const priceTrigger = (url: string) => ({
  type: 'price',
  asset: 'NEO',
  condition: 'above',
  value: '1',
  currency: 'USD',
  source: { url, path: 'data.price', timestampPath: 'data.ts' },
  pollInterval: 1,
});
const automation = (url: string) => ({
  name: 'egress',
  trigger: priceTrigger(url),
  action: { type: 'function', functionId },
});

/** The automation once its price trigger has failed NEOFLOW_TRIGGER_FAILURES polls in a row. */
const stoppedByItsSource = (id: string) =>
  until(
    async () => (await client.call('GET', `/automations/${id}`)).body,
    (body) => body.status === 'error',
  );

/** The workflow id of the poller that reads `automationId`'s price source. */
async function pollerOf(automationId: string): Promise<string> {
  const [row] = await running.api.services
    .em()
    .getConnection()
    .execute<{ price_source: string }[]>('select "price_source" from "automations" where "id" = ?', [automationId]);
  return pricePollerId(row!.price_source);
}

describe('price sources inside the service network', () => {
  it.each([
    ['127.1', 'http://127.1:8080/price'],
    ['2130706433', 'http://2130706433/price'],
    ['[::1]', 'http://[::1]:8080/price'],
    ['localhost', 'http://localhost:7233/'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data/'],
    ['a private network, its path templated', 'http://10.0.0.1/{asset}-{currency}'],
  ])('are refused at create when the URL names %s, with a 400 naming the field', async (_form, url) => {
    const created = await client.call('POST', '/automations', automation(url));
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('INVALID_REQUEST');
    expect(created.body.error.details.field).toBe('trigger.source.url');
    expect(created.body.error.message).toMatch(
      /^The price source URL is refused: .*(inside the service's network|is this host)\.$/,
    );
  });

  it('are refused on update too', async () => {
    const id = await client.create({ ...automation('https://prices.example.com/{asset}'), status: 'inactive' });
    const patched = await client.call('PATCH', `/automations/${id}`, {
      trigger: priceTrigger('http://[::ffff:7f00:1]/'),
    });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details.field).toBe('trigger.source.url');
  });

  it('fail each poll with a recorded refusal when a name resolves inside, and are never read', async () => {
    const prices = await startPriceServer();
    try {
      // This machine's own name resolves to one of its addresses, inside by definition.
      const name = hostname();
      const { address } = await lookup(name);
      const url = prices.url.replace('127.0.0.1', name);
      const id = await client.create(automation(url));
      const stopped = await stoppedByItsSource(id);
      const port = new URL(prices.url).port;
      expect(stopped.details.lastError).toBe(
        `the price source ${name}:${port} is refused: ${name} resolves to ${address}, inside the service's network`,
      );
      expect(prices.hits()).toBe(0);
      expect(await client.runs(id)).toEqual([]);
    } finally {
      await prices.close();
    }
  });

  it('move the automation to error after NEOFLOW_TRIGGER_FAILURES polls in a row, and back to active on PATCH', async () => {
    const url = `http://${hostname()}:9/price`;
    const id = await client.create(automation(url));
    const stopped = await stoppedByItsSource(id);
    expect(stopped).toMatchObject({
      status: 'error',
      details: {
        reason: 'trigger_unavailable',
        message: 'The price could not be read in 3 polls in a row.',
        since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        lastError: expect.stringMatching(/is refused: .* resolves to .*, inside the service's network$/),
      },
    });
    // Its source's poller, reading for no other automation, ends: no active automation is left on it.
    const poller = running.api.services.temporal.client.workflow.getHandle(await pollerOf(id));
    await poller.result();
    expect((await poller.describe()).status.name).toBe('COMPLETED');
    const revived = await client.call('PATCH', `/automations/${id}`, { status: 'active' });
    expect(revived.status).toBe(200);
    expect(revived.body.status).toBe('active');
    expect(revived.body.details).toBeUndefined();
  });
});

describe('webhooks inside the service network', () => {
  const schedule = { type: 'schedule', cron: '@yearly' };
  const hook = (url: string) => ({ type: 'webhook', url, signingSecret: 'ANY_SECRET' });

  it('refuses at create a webhook action at 127.0.0.1 with a 400 naming the field, and records nothing', async () => {
    const created = await client.call('POST', '/automations', {
      name: 'hook',
      trigger: schedule,
      action: hook('http://127.0.0.1:8080/hook'),
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toEqual({
      code: 'INVALID_REQUEST',
      message: `"action.url" is refused: 127.0.0.1 is inside the service's network.`,
      details: { field: 'action.url' },
    });
    expect((await client.call('GET', '/automations')).body.automations).not.toContainEqual(
      expect.objectContaining({ name: 'hook' }),
    );
  });

  it('refuses a notification channel at localhost, on create and on update', async () => {
    const notify = [{ on: ['failure'], channel: { type: 'slack', url: 'http://localhost:9000/slack' } }];
    const created = await client.call('POST', '/automations', {
      name: 'told',
      trigger: schedule,
      action: { type: 'function', functionId },
      notify,
    });
    expect(created.status).toBe(400);
    expect(created.body.error.details).toEqual({ field: 'notify.0.channel.url' });
    const id = await client.create({ name: 'told later', trigger: schedule, action: { type: 'function', functionId } });
    const patched = await client.call('PATCH', `/automations/${id}`, { notify });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details).toEqual({ field: 'notify.0.channel.url' });
  });
});

describe('IPv6 addresses that embed IPv4', () => {
  const schedule = { type: 'schedule', cron: '@yearly' };
  const at = (url: string): [field: string, body: () => object][] => [
    ['trigger.source.url', () => automation(url)],
    ['action.url', () => ({ name: 'hook', trigger: schedule, action: { type: 'webhook', url, signingSecret: 'S' } })],
    [
      'notify.0.channel.url',
      () => ({
        name: 'told',
        trigger: schedule,
        action: { type: 'function', functionId },
        notify: [{ on: ['failure'], channel: { type: 'slack', url } }],
      }),
    ],
  ];

  it.each([
    ['IPv4-compatible loopback', 'http://[::7f00:1]/'],
    ['IPv4-compatible loopback, dotted', 'http://[::127.0.0.1]:8080/'],
    ['IPv4-compatible cloud metadata', 'http://[::a9fe:a9fe]/latest/meta-data/'],
    ['IPv4-translated loopback', 'http://[::ffff:0:7f00:1]/'],
  ])('are refused at create as a price source, a webhook and a channel when the URL is %s', async (_form, url) => {
    for (const [field, body] of at(url)) {
      const created = await client.call('POST', '/automations', body());
      expect({ field, status: created.status }).toEqual({ field, status: 400 });
      expect(created.body.error.details).toEqual({ field });
    }
  });
});
