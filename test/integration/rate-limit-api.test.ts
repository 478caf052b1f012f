import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import type { Rate } from '../../src/ratelimit/rate.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { neoflow } from '../support/cli.ts';
import { issueKey, keysCliEnv, testMasters, uniqueAccountName } from '../support/keys.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const get = (path: string, key?: string) => fetch(`${api.url}${path}`, { headers: key ? { 'X-API-Key': key } : {} });

/** A key whose bucket, once empty, stays empty for the whole test (one token per 200 s). */
const slowRate: Rate = { requests: 3, windowSeconds: 600 };
const keyWithRate = async (rate: Rate, account = uniqueAccountName('rl')) =>
  (await createKey(api.database.orm.em.fork(), testMasters, account, ['*'], { rate })).key;

const limits = (response: Response) => ({
  limit: response.headers.get('RateLimit-Limit'),
  remaining: response.headers.get('RateLimit-Remaining'),
  reset: response.headers.get('RateLimit-Reset'),
});

async function exhaust(path: string, key: string, allowance: number) {
  for (let request = 0; request < allowance; request += 1) expect((await get(path, key)).status).not.toBe(429);
  return get(path, key);
}

const areas = [
  { path: '/v1/account', shape: { success: false, error: expect.objectContaining({ code: 'rate_limit_exceeded' }) } },
  {
    path: '/v1/functions/anything',
    shape: { success: false, error: expect.objectContaining({ code: 'rate_limit_exceeded' }) },
  },
  { path: '/v1/secrets/anything', shape: { error: expect.objectContaining({ code: 'RATE_LIMIT_EXCEEDED' }) } },
  { path: '/v1/automations/anything', shape: { error: expect.objectContaining({ code: 'RATE_LIMIT_EXCEEDED' }) } },
];

describe('rate limits', () => {
  it('counts every authenticated request, errors included, with decreasing RateLimit headers', async () => {
    // Refilled by one token per 1,000 s: however slow the machine, no token comes back mid-test.
    const key = await keyWithRate({ requests: 100, windowSeconds: 100_000 });
    const responses = [
      await get('/v1/account', key),
      await get('/v1/functions/anything', key),
      await get('/v1/secrets/anything', key),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 404, 404]);
    expect(responses.map(limits)).toEqual([
      { limit: '100', remaining: '99', reset: '1000' },
      { limit: '100', remaining: '98', reset: '2000' },
      { limit: '100', remaining: '97', reset: '3000' },
    ]);
  });

  it('leaves requests without a key uncounted and without RateLimit headers', async () => {
    for (const response of [await get('/v1/health'), await get('/v1/account')]) {
      expect(response.headers.get('RateLimit-Limit')).toBeNull();
    }
  });

  it.each(areas)('answers 429 in the shape of the area of $path, with Retry-After', async ({ path, shape }) => {
    const key = await keyWithRate(slowRate);
    const refused = await exhaust(path, key, slowRate.requests);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual(shape);
    expect(limits(refused)).toEqual({ limit: '3', remaining: '0', reset: expect.stringMatching(/^\d+$/) });
    const retryAfter = Number(refused.headers.get('Retry-After'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 200).toBe(true);
  });

  it('gives the 429 details a client can act on', async () => {
    const key = await keyWithRate(slowRate);
    const body = (await (await exhaust('/v1/account', key, 3)).json()) as { error: { details: object } };
    expect(body.error.details).toEqual({ limit: 3, windowSeconds: 600, retryAfter: expect.any(Number) });
  });

  it('keeps one bucket per key: another key of the same account is unaffected', async () => {
    const account = uniqueAccountName('shared');
    const limited = await keyWithRate(slowRate, account);
    expect((await exhaust('/v1/account', limited, 3)).status).toBe(429);
    const { key: other } = await issueKey(api.database.orm, ['*'], account);
    const response = await get('/v1/account', other);
    expect(response.status).toBe(200);
    expect(limits(response)).toMatchObject({ limit: '100', remaining: '99' });
  });

  it('honours a rate given with `neoflow keys create --rate`, and shows it in `keys list`', async () => {
    const env = keysCliEnv(api.database.url);
    const account = uniqueAccountName('cli');
    const created = await neoflow(['keys', 'create', '--account', account, '--rate', '2/600s'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('rate 2/600s');
    const key = created.stdout.trimEnd().split('\n').at(-1)!;
    const refused = await exhaust('/v1/functions/anything', key, 2);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('RateLimit-Limit')).toBe('2');
    await neoflow(['keys', 'create', '--account', account], env);
    const listed = await neoflow(['keys', 'list', '--account', account], env);
    expect(listed.stdout).toMatch(/rate 2\/600s /);
    expect(listed.stdout).toMatch(/rate 100\/10s \(default\) /);
  });

  it('refuses an invalid --rate with one line', async () => {
    const result = await neoflow(['keys', 'create', '--account', 'x', '--rate', '100/10m'], {
      DATABASE_URL: api.database.url,
    });
    expect(result).toMatchObject({
      code: 1,
      stderr: 'neoflow: invalid --rate "100/10m": must be <requests>/<seconds>s, such as 100/10s\n',
    });
  });
});
