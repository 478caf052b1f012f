import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/auth/keys.service.ts';
import type { Rate } from '../../src/ratelimit/rate.ts';
import { startApiProcess, type ApiProcess } from '../support/api-process.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';

/** Two `neoflow api` processes on one database share one limit: they share only PostgreSQL. */
let db: TestDatabase;
let apis: ApiProcess[];
let urls: string[];
beforeAll(async () => {
  db = await createTestDatabase();
  apis = await Promise.all([startApiProcess(db.url), startApiProcess(db.url)]);
  urls = apis.map((api) => api.url);
});
afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop()));
  await db.drop();
});

const keyWithRate = async (rate: Rate) =>
  (await createKey(db.orm.em.fork(), testMasters, uniqueAccountName('replicas'), ['*'], { rate })).key;

/** `perInstance` concurrent requests to each instance; the statuses, grouped by instance. */
const burst = (key: string, perInstance: number) =>
  Promise.all(
    urls.map((url) =>
      Promise.all(
        Array.from({ length: perInstance }, async () => {
          const response = await fetch(`${url}/v1/account`, { headers: { 'X-API-Key': key } });
          await response.body?.cancel();
          return response.status;
        }),
      ),
    ),
  );

const acceptedIn = (statuses: number[][]) => statuses.flat().filter((status) => status === 200).length;

describe('rate limits across two API processes', () => {
  it('grants one burst in total, not one per instance', async () => {
    const rate = { requests: 5, windowSeconds: 600 };
    const statuses = await burst(await keyWithRate(rate), 10);
    expect(acceptedIn(statuses)).toBe(rate.requests);
    expect(statuses.flat().filter((status) => status === 429)).toHaveLength(20 - rate.requests);
  });

  it('holds burst + rate × elapsed over sustained traffic to both', async () => {
    const rate = { requests: 10, windowSeconds: 1 };
    const key = await keyWithRate(rate);
    const started = performance.now();
    const rounds: number[][][] = [];
    for (let round = 0; round < 8; round += 1) {
      rounds.push(await burst(key, 6));
      await sleep(200);
    }
    const elapsed = (performance.now() - started) / 1000;
    const accepted = rounds.reduce((sum, statuses) => sum + acceptedIn(statuses), 0);
    expect(accepted).toBeLessThanOrEqual(rate.requests + (rate.requests / rate.windowSeconds) * elapsed);
    for (const instance of [0, 1]) {
      const seen = rounds.flatMap((statuses) => statuses[instance]!);
      expect(seen).toContain(200);
      expect(seen).toContain(429);
    }
  });
});
