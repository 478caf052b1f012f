import { createHmac } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNeoRpc } from '../../src/chain/rpc.ts';
import { fundFromDevWallet } from '../../src/stack/dev-funder.ts';
import { gasTransferAction, type Loose } from '../support/automations.ts';
import {
  api,
  call,
  create,
  deploy,
  echoFn,
  error,
  failFn,
  isoMillis,
  startAutomationsApi,
  stopAutomationsApi,
  unique,
} from '../support/automations-api.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhook-receiver.ts';

// Webhook actions and notifications, delivered to a receiver on loopback (allowed by the tests'
// NEOFLOW_EGRESS_ALLOW), Telegram's Bot API included.
let receiver: WebhookReceiver;
const signingValue = 'whsec-test-value-0123456789';
const botToken = '123456:telegram-token-value';

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  await startAutomationsApi({ env: { NEOFLOW_TELEGRAM_API_URL: receiver.url('/telegram') } });
  expect((await call('POST', '/secrets', { name: 'HOOK_SECRET', value: signingValue })).status).toBe(201);
  expect((await call('POST', '/secrets', { name: 'BOT_TOKEN', value: botToken })).status).toBe(201);
});
afterAll(async () => {
  await stopAutomationsApi();
  await receiver.close();
});

/** Checks `Neoflow-Signature` as a receiver would: HMAC-SHA256 of "<t>.<body>" under the secret's value. */
function signatureHolds(request: Received, secret = signingValue) {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['neoflow-signature']));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest('hex');
  return expected === match[2] && Math.abs(Number(match[1]) - Date.now() / 1000) < 300;
}

const path = () => `/hook-${unique()}`;
const webhook = (at: string, extra: Record<string, unknown> = {}) => ({
  type: 'webhook',
  url: receiver.url(at),
  signingSecret: 'HOOK_SECRET',
  ...extra,
});

async function fire(automationId: string): Promise<string> {
  const fired = await call('POST', `/automations/${automationId}/trigger`);
  expect(fired.status).toBe(202);
  return fired.body.run.id as string;
}

/** The run once its workflow has ended: its end told, its notifications recorded and started. */
async function endedRun(automationId: string, runId: string): Promise<Loose> {
  await api.services.temporal.client.workflow.getHandle(runId).result();
  const got = await call('GET', `/automations/${automationId}/runs/${runId}`);
  expect(got.status).toBe(200);
  return got.body as Loose;
}

/** A notification as a run shows it. */
interface Told {
  id: string;
  channel: string;
  event: string;
  status: string;
  attempts: number;
}

/** A JSON body a receiver got. */
const parsed = (request: Received) => JSON.parse(request.body) as Loose;

/** The run's notifications once none is pending any more. */
const settledNotifications = (automationId: string, runId: string) =>
  until(
    async () => (await call('GET', `/automations/${automationId}/runs/${runId}`)).body.notifications as Told[],
    (notifications) => notifications.every((notification) => notification.status !== 'pending'),
  );

describe('webhook actions', () => {
  it('delivers a manual fire once, signed with the secret`s value, and the run succeeds', async () => {
    const at = path();
    const automation = await create({ action: webhook(at, { headers: { 'X-Receiver-Token': 'abc' } }) });
    const runId = await fire(automation.id);
    const run = await endedRun(automation.id, runId);
    expect(run).toMatchObject({ id: runId, status: 'success', error: null, notifications: [] });

    const [delivery, ...more] = receiver.at(at);
    expect(more).toEqual([]);
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'neoflow-delivery': runId,
      'x-receiver-token': 'abc',
    });
    expect(signatureHolds(delivery!)).toBe(true);
    expect(signatureHolds(delivery!, 'another secret')).toBe(false);
    expect(JSON.parse(delivery!.body)).toEqual({
      id: runId,
      automationId: automation.id,
      trigger: { type: 'manual' },
      firedAt: run.startedAt,
    });
    // The secret's value is in no answer about the automation or its run.
    const shown = JSON.stringify([(await call('GET', `/automations/${automation.id}`)).body, run]);
    expect(shown).not.toContain(signingValue);
  });

  it('retries 503 twice with the same Neoflow-Delivery, and the third delivery succeeds the run', async () => {
    const at = path();
    receiver.answer(at, 503, 503);
    const automation = await create({ action: webhook(at) });
    const runId = await fire(automation.id);
    const run = await endedRun(automation.id, runId);
    expect(run.status).toBe('success');
    const deliveries = receiver.at(at);
    expect(deliveries.map((delivery) => delivery.headers['neoflow-delivery'])).toEqual([runId, runId, runId]);
    expect(deliveries.every((delivery) => signatureHolds(delivery))).toBe(true);
  });

  it('fails the run at once on a 404, recording the status and the answer', async () => {
    const at = path();
    receiver.answer(at, 404);
    const automation = await create({ action: webhook(at) });
    const runId = await fire(automation.id);
    const run = await endedRun(automation.id, runId);
    expect(receiver.at(at)).toHaveLength(1);
    expect(run).toMatchObject({
      status: 'failure',
      error: {
        name: 'WebhookFailed',
        message: expect.stringMatching(/answered HTTP 404/),
        status: 404,
        body: 'answer 404',
      },
    });
  });

  it('POSTs once to a receiver whose refusal holds U+0000, and records that answer storably', async () => {
    const at = path();
    receiver.answer(at, 404);
    receiver.answerBody(at, Buffer.from('no\u0000way \xed\xa0\x80', 'latin1'));
    const automation = await create({ action: webhook(at) });
    const runId = await fire(automation.id);
    const run = await endedRun(automation.id, runId);
    expect(receiver.at(at)).toHaveLength(1);
    expect(run).toMatchObject({
      status: 'failure',
      error: { name: 'WebhookFailed', status: 404, body: expect.stringMatching(/^no\uFFFDway \uFFFD+$/) },
    });
  });

  it('refuses at create a signing secret the account does not have, naming the field', async () => {
    const created = await call('POST', '/automations', {
      name: 'no such secret',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { ...webhook(path()), signingSecret: 'MISSING' },
    });
    expect(created).toEqual(error(400, 'INVALID_REQUEST', { field: 'action.signingSecret' }));
  });
});

describe('notifications', () => {
  it('tells a failure after afterFailures failed runs in a row, once, and the first success a recovery', async () => {
    const at = path();
    const notify = [{ on: ['failure', 'recovery'], afterFailures: 2, channel: webhook(at) }];
    const automation = await create({ action: { type: 'function', functionId: failFn }, notify });
    const shownUrl = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/ho…\/\*\*\*\*$/);
    expect(automation.notify).toEqual([{ ...notify[0], channel: { ...notify[0]!.channel, url: shownUrl } }]);

    const first = await endedRun(automation.id, await fire(automation.id));
    expect(first).toMatchObject({ status: 'failure', notifications: [] });
    const secondId = await fire(automation.id);
    expect((await endedRun(automation.id, secondId)).status).toBe('failure');
    expect(await settledNotifications(automation.id, secondId)).toEqual([
      { id: expect.stringMatching(/^ntf_/), channel: 'webhook', event: 'failure', status: 'delivered', attempts: 1 },
    ]);
    const third = await endedRun(automation.id, await fire(automation.id));
    expect(third).toMatchObject({ status: 'failure', notifications: [] });

    const patched = await call('PATCH', `/automations/${automation.id}`, {
      action: { type: 'function', functionId: echoFn },
    });
    expect(patched.status).toBe(200);
    const recoveredId = await fire(automation.id);
    expect((await endedRun(automation.id, recoveredId)).status).toBe('success');
    const [recovery] = await settledNotifications(automation.id, recoveredId);
    expect(recovery).toMatchObject({ event: 'recovery', status: 'delivered', attempts: 1 });

    const told = receiver.at(at);
    expect(told.every((request) => signatureHolds(request))).toBe(true);
    const bodies = told.map((request) => parsed(request));
    expect(bodies.map((body): unknown[] => [body.event, body.run.id])).toEqual([
      ['failure', secondId],
      ['recovery', recoveredId],
    ]);
    expect(bodies[0]).toMatchObject({
      automation: { id: automation.id, name: automation.name },
      run: { status: 'failure', error: { name: 'TypeError', message: 'boom' } },
      occurredAt: expect.stringMatching(isoMillis),
      text: expect.stringContaining('TypeError: boom'),
    });
    expect(told.map((request) => request.headers['neoflow-delivery'])).toEqual([bodies[0]!.id, recovery!.id]);
  });

  it('posts Slack, Discord and Telegram in their own formats, the bot token only in Telegram`s URL', async () => {
    const slack = path();
    const discord = path();
    const chatId = '-100123';
    const notify = [
      { on: ['failure'], channel: { type: 'slack', url: receiver.url(slack) } },
      { on: ['failure'], channel: { type: 'discord', url: receiver.url(discord) } },
      { on: ['failure'], channel: { type: 'telegram', botTokenSecret: 'BOT_TOKEN', chatId } },
    ];
    const automation = await create({ name: 'a <b> & c', action: { type: 'function', functionId: failFn }, notify });
    const runId = await fire(automation.id);
    await endedRun(automation.id, runId);
    const settled = await settledNotifications(automation.id, runId);
    expect(settled.map((n) => [n.channel, n.status])).toEqual([
      ['slack', 'delivered'],
      ['discord', 'delivered'],
      ['telegram', 'delivered'],
    ]);

    const [slackPost] = receiver.at(slack);
    const slackText = JSON.parse(slackPost!.body).text as string;
    expect(slackText).toContain('a &lt;b&gt; &amp; c');
    expect(slackText).toContain(runId);
    expect(JSON.parse(receiver.at(discord)[0]!.body)).toEqual({
      content: expect.stringContaining('TypeError: boom'),
      allowed_mentions: { parse: [] },
    });
    const [telegramPost] = receiver.at(`/telegram/bot${botToken}/sendMessage`);
    expect(JSON.parse(telegramPost!.body)).toEqual({ chat_id: chatId, text: expect.stringContaining(runId) });
    const shown = JSON.stringify([(await call('GET', `/automations/${automation.id}`)).body, settled]);
    expect(shown).not.toContain(botToken);
  });

  it('tells error once when the function the automation runs is deleted', async () => {
    const at = path();
    const functionId = await deploy('module.exports = async () => 1;');
    const automation = await create({
      action: { type: 'function', functionId },
      notify: [{ on: ['error'], channel: webhook(at) }],
    });
    expect((await call('DELETE', `/functions/${functionId}`)).status).toBe(200);
    const [told] = await until(
      async () => receiver.at(at),
      (requests) => requests.length > 0,
    );
    expect(signatureHolds(told!)).toBe(true);
    expect(JSON.parse(told!.body)).toMatchObject({
      event: 'error',
      automation: { id: automation.id },
      run: null,
      reason: expect.stringContaining(functionId),
    });
    expect((await call('GET', `/automations/${automation.id}`)).body.status).toBe('error');
  });

  it('refuses a rule with low_gas and no threshold, naming the field', async () => {
    const created = await call('POST', '/automations', {
      name: 'low gas without threshold',
      trigger: { type: 'schedule', cron: '@yearly' },
      action: { type: 'function', functionId: echoFn },
      notify: [{ on: ['low_gas'], channel: webhook(path()) }],
    });
    expect(created).toEqual(error(400, 'INVALID_REQUEST', { field: 'notify.0.belowGas' }));
  });
});

describe('low_gas', () => {
  it('tells once per crossing under the threshold, as contract runs drain the signer on the dev chain', async () => {
    const { signer } = (await call('GET', '/account')).body;
    const rpcUrl = inject('neoRpcUrl');
    const fund = (gas: bigint) => fundFromDevWallet(rpcUrl, inject('devWallet'), signer.address, gas * 10n ** 8n);
    await fund(10n);
    const at = path();
    const payee = new wallet.Account().address;
    const automation = await create({
      action: gasTransferAction(signer.address, payee, String(3n * 10n ** 8n)),
      notify: [{ on: ['low_gas'], belowGas: '5', channel: webhook(at) }],
    });
    /** Runs the action once; answers the run's low_gas notifications once delivered. */
    const pay = async () => {
      const runId = await fire(automation.id);
      expect((await endedRun(automation.id, runId)).status).toBe('success');
      return (await settledNotifications(automation.id, runId)).map((n) => [n.event, n.status]);
    };
    const balance = async () => Number((await createNeoRpc(rpcUrl).getBalance(signer.address, 'GAS')).amount) / 1e8;

    expect(await pay()).toEqual([]); // 10 - 3 - fees: still above 5
    expect(await balance()).toBeGreaterThan(5);
    expect(await pay()).toEqual([['low_gas', 'delivered']]); // under 5: crossed
    expect(await pay()).toEqual([]); // still under: told already
    await fund(10n);
    expect(await pay()).toEqual([]); // over 5 again when checked: the rule is armed again
    expect(await balance()).toBeGreaterThan(5);
    expect(await pay()).toEqual([['low_gas', 'delivered']]); // the second crossing

    const told = receiver.at(at).map((request) => parsed(request));
    expect(told).toHaveLength(2);
    expect(told[0]).toMatchObject({
      event: 'low_gas',
      gas: { signer: 'default', address: signer.address, balance: expect.stringMatching(/^\d+(\.\d+)?$/), below: '5' },
    });
    expect(Number(told[0]!.gas.balance)).toBeLessThan(5);
  });
});

describe('runs', () => {
  it('answers 404 RUN_NOT_FOUND for a run of no automation of the account', async () => {
    const automation = await create();
    const got = await call('GET', `/automations/${automation.id}/runs/run_doesnotexist00000000000`);
    expect(got.status).toBe(404);
    expect(got.body.error.code).toBe('RUN_NOT_FOUND');
  });
});
