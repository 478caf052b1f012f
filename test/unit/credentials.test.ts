import { describe, expect, it } from 'vitest';
import { credentialsOf, isMasked, masked, maskOf } from '../../src/automations/credentials/credentials.ts';

describe('credential masks', () => {
  it.each([
    [
      'a Slack webhook',
      'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
      'https://hooks.slack.com/services/T…/****',
    ],
    [
      'a Discord webhook',
      'https://discord.com/api/webhooks/1234567890/abcdefghijklmnop',
      'https://discord.com/api/webhoo…/****',
    ],
    ['a key in the query', 'https://prices.example.com/v1/price?apikey=SECRET', 'https://prices.example.com/v1…/****'],
    ['a short path', 'https://prices.example.com/SECRET', 'https://prices.example.com/SE…/****'],
    ['no path', 'https://prices.example.com/?key=SECRET', 'https://prices.example.com/****'],
    [
      'a user and password, a port and a fragment',
      'http://me:SECRET@10.0.0.1:8080/#SECRET',
      'http://10.0.0.1:8080/****',
    ],
  ])('shows of %s its scheme, host and at most 10 characters of its path', (_what, url, mask) => {
    expect(maskOf('url', url)).toBe(mask);
    expect(isMasked(mask)).toBe(true);
  });

  it('shows no header value at all', () => {
    expect(maskOf('header', 'Bearer SECRET')).toBe('****');
  });

  it('finds every credential of an automation by its place, and masks each', () => {
    const parts = {
      trigger: {
        type: 'price' as const,
        asset: 'NEO',
        condition: 'above' as const,
        value: '1',
        currency: 'USD',
        source: { url: 'https://p.example.com/x?k=S1', path: 'price' },
      },
      action: {
        type: 'webhook' as const,
        url: 'https://r.example.com/S2',
        headers: { 'X-Token': 'S3' },
        signingSecret: 'HOOK',
      },
      notify: [
        { on: ['failure' as const], channel: { type: 'telegram' as const, botTokenSecret: 'BOT', chatId: '1' } },
        {
          on: ['failure' as const],
          channel: { type: 'slack' as const, url: 'https://hooks.slack.com/services/T1/B2/S4' },
        },
      ],
    };
    expect(credentialsOf(parts).map(({ path, kind }) => [path, kind])).toEqual([
      ['trigger.source.url', 'url'],
      ['action.url', 'url'],
      ['action.headers.X-Token', 'header'],
      ['notify.1.channel.url', 'url'],
    ]);
    expect(JSON.stringify(masked(parts))).not.toMatch(/S[1-4]/);
    expect(masked(parts).notify[0]).toEqual(parts.notify[0]);
  });
});
