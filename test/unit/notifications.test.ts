import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { channelRequest } from '../../src/automations/notifications/channel-requests.ts';
import { gasText, gasUnits } from '../../src/chain/gas-amount.ts';
import type { NotificationMessage } from '../../src/automations/notifications/notification.entity.ts';
import { notifySchema, type NotifyRule } from '../../src/automations/model/notify.schemas.ts';
import { signatureHeader } from '../../src/automations/notifications/signature.ts';
import { runEndEvents } from '../../src/automations/notifications/streaks.ts';

const hook = { type: 'webhook' as const, url: 'https://hooks.example.com/a', signingSecret: 'S' };
const rule = (extra: Partial<NotifyRule> = {}): NotifyRule => ({
  on: ['failure', 'recovery'],
  channel: hook,
  ...extra,
});

describe('runEndEvents: failure once a streak reaches afterFailures, recovery when such a streak ends', () => {
  const twice = [rule({ afterFailures: 2 })];
  const failed = (length: number, before = length - 1) => ({ before, length });

  it('tells nothing on the first failure, failure once the streak reaches the threshold or passes it', () => {
    expect(runEndEvents(twice, 'failure', failed(1))).toEqual([]);
    expect(runEndEvents(twice, 'failure', failed(2))).toEqual([{ rule: 0, event: 'failure' }]);
    // The caller keys a failure by its streak: a third failure finds it told already.
    expect(runEndEvents(twice, 'failure', failed(3))).toEqual([{ rule: 0, event: 'failure' }]);
  });

  it('tells a failure that ended first when a later end makes its streak reach the threshold', () => {
    // Two runs ending together, this one's end read after the other's: nothing ended before it.
    expect(runEndEvents(twice, 'failure', { before: 0, length: 2 })).toEqual([{ rule: 0, event: 'failure' }]);
  });

  it('tells recovery on a success after a streak that reached the threshold only', () => {
    expect(runEndEvents(twice, 'success', { before: 3, length: 0 })).toEqual([{ rule: 0, event: 'recovery' }]);
    expect(runEndEvents(twice, 'success', { before: 1, length: 0 })).toEqual([]);
    expect(runEndEvents(twice, 'success', { before: 0, length: 0 })).toEqual([]);
  });

  it('defaults afterFailures to 1 and answers each rule by its index and events', () => {
    const rules = [rule({ on: ['recovery'] }), rule()];
    expect(runEndEvents(rules, 'failure', failed(1))).toEqual([{ rule: 1, event: 'failure' }]);
    expect(runEndEvents(rules, 'success', { before: 1, length: 0 })).toEqual([
      { rule: 0, event: 'recovery' },
      { rule: 1, event: 'recovery' },
    ]);
  });
});

describe('notifySchema', () => {
  const issueAt = (value: unknown) => notifySchema.safeParse(value).error?.issues[0]?.path.join('.');

  it('requires belowGas with low_gas, and refuses it without', () => {
    expect(issueAt([{ on: ['low_gas'], channel: hook }])).toBe('0.belowGas');
    expect(issueAt([{ on: ['failure'], belowGas: '1', channel: hook }])).toBe('0.belowGas');
    expect(issueAt([{ on: ['low_gas'], belowGas: '0.5', channel: hook }])).toBeUndefined();
  });

  it.each([
    ['an event twice', [{ on: ['failure', 'failure'], channel: hook }], '0.on'],
    ['no event', [{ on: [], channel: hook }], '0.on'],
    [
      'a header of ours',
      [{ on: ['failure'], channel: { ...hook, headers: { 'Neoflow-Delivery': 'x' } } }],
      '0.channel.headers.Neoflow-Delivery',
    ],
    [
      'a control character in a header',
      [{ on: ['failure'], channel: { ...hook, headers: { 'X-A': 'a\r\nb' } } }],
      '0.channel.headers.X-A',
    ],
    ['a GAS amount with 9 decimals', [{ on: ['low_gas'], belowGas: '0.000000001', channel: hook }], '0.belowGas'],
    ['an unknown channel', [{ on: ['failure'], channel: { type: 'email', to: 'a@b.c' } }], '0.channel.type'],
    ['eleven rules', Array.from({ length: 11 }, () => ({ on: ['failure'], channel: hook })), ''],
  ])('refuses %s', (_what, value, path) => {
    expect(issueAt(value)).toBe(path);
  });
});

describe('signatureHeader', () => {
  it('is t and the hex HMAC-SHA256 of "<t>.<body>" under the secret', () => {
    const header = signatureHeader('s3cret', '{"a":1}', 1_700_000_000_999);
    const v1 = createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex');
    expect(header).toBe(`t=1700000000,v1=${v1}`);
  });
});

describe('gas amounts', () => {
  it('turns decimal GAS into its smallest unit and back', () => {
    expect(gasUnits('5')).toBe(500_000_000n);
    expect(gasUnits('0.00000001')).toBe(1n);
    expect(gasText(396_543_210n)).toBe('3.9654321');
  });
});

describe('channelRequest', () => {
  const message: NotificationMessage = {
    event: 'failure',
    automation: { id: 'auto_1', name: 'pay <@everyone>' },
    run: null,
    occurredAt: '2026-11-25T00:00:00.000Z',
    text: 'Neoflow: automation "pay <@everyone>" (auto_1) failed.',
  };
  const context = { id: 'ntf_1', secret: 'token-value', telegramApiUrl: 'https://api.telegram.org/' };

  it('signs a webhook body that carries the notification id', () => {
    const post = channelRequest(hook, message, context);
    expect(JSON.parse(post.body)).toEqual({ id: 'ntf_1', ...message });
    expect(post.headers).toMatchObject({ 'Neoflow-Delivery': 'ntf_1', 'Neoflow-Event': 'failure' });
    expect(post.headers['Neoflow-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it('escapes Slack markup and lets no Discord mention ping', () => {
    const slack = channelRequest({ type: 'slack', url: 'https://hooks.slack.com/x' }, message, context);
    expect(JSON.parse(slack.body).text).toContain('pay &lt;@everyone&gt;');
    const discord = channelRequest({ type: 'discord', url: 'https://discord.com/x' }, message, context);
    expect(JSON.parse(discord.body).allowed_mentions).toEqual({ parse: [] });
  });

  it('puts the bot token in Telegram`s URL only, and fails when the secret is gone', () => {
    const channel = { type: 'telegram' as const, botTokenSecret: 'BOT', chatId: '42' };
    const post = channelRequest(channel, message, context);
    expect(post.url).toBe('https://api.telegram.org/bottoken-value/sendMessage');
    expect(post.body).not.toContain('token-value');
    expect(() => channelRequest(channel, message, { ...context, secret: undefined })).toThrow(
      'The secret BOT no longer exists.',
    );
  });
});
