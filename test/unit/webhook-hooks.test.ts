import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashToken,
  looksLikeHookPath,
  newHookPath,
  newHookToken,
  presentedToken,
  signatureRefusal,
  tokenMatches,
  type HmacAuth,
} from '../../src/automations/hooks/hook-credentials.ts';
import { templateRootProblem, templateValue } from '../../src/automations/model/arg-templates.ts';
import { resolveCalls } from '../../src/automations/actions/resolve-calls.ts';
import { createAutomationBody } from '../../src/automations/automations.schemas.ts';
import { loggableHookPath } from '../../src/automations/hooks/hooks.routes.ts';
import { LocalBuckets } from '../../src/automations/hooks/local-buckets.ts';
import type { FirePayload } from '../../src/automations/model/run.entity.ts';

const key = 'whsec-test-key';
const body = Buffer.from('{"amount":7}');
const now = 1_800_000_000;
const sign = (content: string | Buffer, algorithm = 'sha256') =>
  createHmac(algorithm, key).update(content).digest('hex');
const headers =
  (values: Record<string, string>) =>
  (name: string): string =>
    values[name.toLowerCase()] ?? '';
const hmac = (more: Partial<HmacAuth> = {}): HmacAuth => ({
  type: 'hmac',
  secret: 'HOOK_KEY',
  header: 'X-Signature',
  algorithm: 'sha256',
  ...more,
});

describe('hook tokens and paths', () => {
  it('are unguessable and distinct, and only the stored hash of the token matches it', () => {
    const token = newHookToken();
    expect(token).toMatch(/^nfh_[A-Za-z0-9_-]{43}$/);
    expect(newHookPath()).toMatch(/^hk_[A-Za-z0-9_-]{32}$/);
    expect(newHookPath()).not.toBe(newHookPath());
    expect(tokenMatches(token, hashToken(token))).toBe(true);
    expect(tokenMatches(`${token}x`, hashToken(token))).toBe(false);
    expect(tokenMatches('', hashToken(token))).toBe(false);
    expect(tokenMatches(token, Buffer.alloc(32))).toBe(false);
  });

  it("tell a path of a hook's shape from a made-up one, refused before any lookup", () => {
    expect(looksLikeHookPath(newHookPath())).toBe(true);
    expect(looksLikeHookPath('hk_unknownunknownunknownunknown12')).toBe(false);
    expect(looksLikeHookPath(`${newHookPath()}x`)).toBe(false);
    expect(looksLikeHookPath(`hk_${'a'.repeat(10_000)}`)).toBe(false);
  });

  it('keep their path out of log lines, whatever its case', () => {
    const path = newHookPath();
    expect(loggableHookPath(`/v1/hooks/${path}`)).toBe('/v1/hooks/…');
    expect(loggableHookPath(`/V1/Hooks/${path}`)).toBe('/v1/hooks/…');
    expect(loggableHookPath('/v1/automations/auto_1')).toBe('/v1/automations/auto_1');
  });

  it('is presented as a bearer token or in X-Neoflow-Token', () => {
    expect(presentedToken('Bearer nfh_abc', '')).toBe('nfh_abc');
    expect(presentedToken('bearer  nfh_abc ', '')).toBe('nfh_abc');
    expect(presentedToken('', ' nfh_abc ')).toBe('nfh_abc');
    expect(presentedToken('Basic xyz', '')).toBe('');
  });
});

describe('hook signatures', () => {
  it('accept the HMAC of the raw body, with or without the algorithm prefix, in either case', () => {
    expect(signatureRefusal(hmac(), key, body, headers({ 'x-signature': sign(body) }), now)).toBeNull();
    expect(signatureRefusal(hmac(), key, body, headers({ 'x-signature': `sha256=${sign(body)}` }), now)).toBeNull();
    const upper = sign(body).toUpperCase();
    expect(signatureRefusal(hmac(), key, body, headers({ 'x-signature': upper }), now)).toBeNull();
    const sha512 = hmac({ algorithm: 'sha512', header: 'X-Hub' });
    expect(signatureRefusal(sha512, key, body, headers({ 'x-hub': sign(body, 'sha512') }), now)).toBeNull();
  });

  it('refuse one byte changed, another key, a missing or malformed signature', () => {
    const signature = sign(body);
    const flipped = Buffer.from(body);
    flipped[10] = flipped[10]! ^ 1;
    expect(signatureRefusal(hmac(), key, flipped, headers({ 'x-signature': signature }), now)).toBe('bad_signature');
    expect(signatureRefusal(hmac(), 'other', body, headers({ 'x-signature': signature }), now)).toBe('bad_signature');
    expect(signatureRefusal(hmac(), key, body, headers({}), now)).toBe('bad_signature');
    expect(signatureRefusal(hmac(), key, body, headers({ 'x-signature': signature.slice(2) }), now)).toBe(
      'bad_signature',
    );
    const nonHex = `zz${signature.slice(2)}`;
    expect(signatureRefusal(hmac(), key, body, headers({ 'x-signature': nonHex }), now)).toBe('bad_signature');
  });

  it('sign `<timestamp>.<body>` when a timestamp header is named, within the tolerance only', () => {
    const auth = hmac({ timestampHeader: 'X-Timestamp', toleranceSeconds: 60 });
    const signed = (at: number) => ({
      'x-timestamp': String(at),
      'x-signature': sign(Buffer.concat([Buffer.from(`${at}.`), body])),
    });
    expect(signatureRefusal(auth, key, body, headers(signed(now - 60)), now)).toBeNull();
    expect(signatureRefusal(auth, key, body, headers(signed(now + 60)), now)).toBeNull();
    expect(signatureRefusal(auth, key, body, headers(signed(now - 61)), now)).toBe('stale_timestamp');
    expect(signatureRefusal(auth, key, body, headers(signed(now + 3600)), now)).toBe('stale_timestamp');
    // The timestamp is signed: another one with the same signature is refused as unsigned.
    const moved = { ...signed(now), 'x-timestamp': String(now - 1) };
    expect(signatureRefusal(auth, key, body, headers(moved), now)).toBe('bad_signature');
    // The body alone signed is not enough when a timestamp is named.
    const bodyOnly = { 'x-timestamp': String(now), 'x-signature': sign(body) };
    expect(signatureRefusal(auth, key, body, headers(bodyOnly), now)).toBe('bad_signature');
  });

  it('default to a tolerance of 300 s', () => {
    const auth = hmac({ timestampHeader: 'X-Timestamp' });
    const at = now - 301;
    const stale = { 'x-timestamp': String(at), 'x-signature': sign(Buffer.concat([Buffer.from(`${at}.`), body])) };
    expect(signatureRefusal(auth, key, body, headers(stale), now)).toBe('stale_timestamp');
  });
});

describe('webhook templates', () => {
  const fired: FirePayload = {
    type: 'webhook',
    body: { amount: 7, order: { id: 'o-1', items: [{ sku: 'a' }] } },
    headers: { 'content-type': 'application/json', 'x-source': 'ci' },
    receivedAt: '2026-12-07T04:00:00.000Z',
  };
  const call = (value: string, type: 'Integer' | 'String' = 'Integer') => ({
    scriptHash: '0xd2a4cff31913016155e38e474a2c06d08be276cf',
    operation: 'transfer',
    args: [{ type, value }],
  });

  it('reach inside the body and the headers', () => {
    expect(templateValue('{{trigger.body.amount}}', 'Integer')).toBeNull();
    expect(templateValue('{{trigger.body.order.items.0.sku}}', 'String')).toBeNull();
    expect(resolveCalls([call('{{trigger.body.amount}}')], fired)).toEqual([
      { ...call('7'), args: [{ type: 'Integer', value: '7' }] },
    ]);
    const sku = resolveCalls([call('{{trigger.body.order.items.0.sku}}', 'String')], fired);
    expect(sku).toEqual([{ ...call('a', 'String') }]);
  });

  it('reach a header by its name in brackets, whatever its case, and a body key with other characters', () => {
    for (const template of ['{{trigger.headers["x-source"]}}', "{{ trigger.headers['X-Source'] }}"]) {
      expect(templateValue(template, 'String')).toBeNull();
      expect(resolveCalls([call(template, 'String')], fired)).toEqual([call('ci', 'String')]);
    }
    const keyed = { ...fired, body: { 'order-id': 'o-2', 'a.b': { c: 3 } } };
    expect(resolveCalls([call('{{trigger.body["order-id"]}}', 'String')], keyed)).toEqual([call('o-2', 'String')]);
    expect(resolveCalls([call('{{trigger.body["a.b"].c}}')], keyed)).toEqual([call('3')]);
    // A dot path takes no hyphen: a header is named in brackets.
    expect(templateValue('{{trigger.headers.x-source}}', 'String')).toMatch(/must be a template/);
  });

  it('refuse a header path that is no header name, or a path inside a header', () => {
    expect(templateValue('{{trigger.headers["x source"]}}', 'String')).toMatch(/names the header "x source"/);
    expect(templateValue('{{trigger.headers["x-source"].a}}', 'String')).toMatch(/inside a header's value/);
    expect(templateValue(`{{trigger.headers["${'x'.repeat(65)}"]}}`, 'String')).toMatch(/must be a template/);
  });

  it('fail at fire time when the request did not send the header', () => {
    const resolved = resolveCalls([call('{{trigger.headers["user-agent"]}}', 'String')], fired);
    expect(resolved).toEqual({
      name: 'TemplateError',
      message: 'args.0: {{trigger.headers["user-agent"]}} names nothing in what fired this run (a webhook fire).',
    });
  });

  it('fail at fire time when the body lacks the path', () => {
    const resolved = resolveCalls([call('{{trigger.body.missing}}')], fired);
    expect(resolved).toMatchObject({ name: 'TemplateError' });
  });

  it("are checked against a webhook trigger's roots at create", () => {
    const args = [{ type: 'Integer' as const, value: '{{trigger.body.amount}}' }];
    expect(templateRootProblem({ type: 'webhook' }, args)).toBeNull();
    expect(templateRootProblem({ type: 'schedule' }, args)).toMatchObject({ field: 'args.0.value' });
    const price = [{ type: 'Integer' as const, value: '{{trigger.price}}' }];
    expect(templateRootProblem({ type: 'webhook' }, price)).toMatchObject({ field: 'args.0.value' });
  });

  it('are refused at create when they name a header the runs do not receive', () => {
    const args = [
      { type: 'String' as const, value: '{{trigger.headers["content-type"]}}' },
      { type: 'String' as const, value: '{{trigger.headers["X-Request-Id"]}}' },
    ];
    expect(templateRootProblem({ type: 'webhook' }, args)).toEqual({
      field: 'args.1.value',
      message: 'names the header "x-request-id", which its runs do not receive: list it in trigger.headers',
    });
    expect(templateRootProblem({ type: 'webhook', headers: ['x-request-ID'] }, args)).toBeNull();
  });
});

describe('the webhook trigger', () => {
  const base = {
    name: 'hook',
    action: { type: 'webhook', url: 'https://example.com/x', signingSecret: 'SIGNING_KEY' },
  };
  const parse = (trigger: unknown) => createAutomationBody.safeParse({ ...base, trigger });

  it('takes token or hmac auth, filling the HMAC defaults', () => {
    expect(parse({ type: 'webhook', auth: { type: 'token' } }).success).toBe(true);
    const signed = parse({ type: 'webhook', auth: { type: 'hmac', secret: 'HOOK_KEY' } });
    expect(signed.success && signed.data.trigger).toEqual({
      type: 'webhook',
      auth: { type: 'hmac', secret: 'HOOK_KEY', header: 'X-Signature', algorithm: 'sha256' },
    });
  });

  it('refuses a credential header among those copied, and a secret name that is none', () => {
    expect(parse({ type: 'webhook', auth: { type: 'token' }, headers: ['Authorization'] }).success).toBe(false);
    expect(parse({ type: 'webhook', auth: { type: 'token' }, headers: ['X-Source'] }).success).toBe(true);
    expect(parse({ type: 'webhook', auth: { type: 'hmac', secret: 'not a name' } }).success).toBe(false);
    expect(parse({ type: 'webhook', auth: { type: 'hmac', secret: 'K', toleranceSeconds: 0 } }).success).toBe(false);
  });
});

describe("a process's hook buckets", () => {
  it('allow the rate per path, refill with time, and forget the oldest path beyond their size', () => {
    let now = 0;
    const buckets = new LocalBuckets({ requests: 2, windowSeconds: 10 }, 2, () => now);
    expect(buckets.take('a')).toBeUndefined();
    expect(buckets.take('a')).toBeUndefined();
    expect(buckets.take('a')).toBe(5);
    expect(buckets.take('b')).toBeUndefined();
    now = 5_000;
    expect(buckets.take('a')).toBeUndefined();
    expect(buckets.take('a')).toBe(5);
    // A third path forgets the oldest, b, which starts full again.
    expect(buckets.take('c')).toBeUndefined();
    expect(buckets.take('b')).toBeUndefined();
    expect(buckets.take('b')).toBeUndefined();
  });
});
