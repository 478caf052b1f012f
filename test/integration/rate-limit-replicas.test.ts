import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import { createKey } from '../../src/auth/keys.service.ts';
import { openOrm } from '../../src/db/orm.ts';
import type { Rate } from '../../src/ratelimit/rate.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testMasters, uniqueAccountName } from '../support/keys.ts';

/**
 * Two API instances on one database, each with its own connection pool, stand for two API
 * processes behind a load balancer: whatever they share, they share through PostgreSQL.
 */
let first: TestApi;
let secondOrm: MikroORM;
let second: Server;
let urls: string[];
beforeAll(async () => {
  first = await startTestApi();
  secondOrm = await openOrm(first.database.url);
  const handle = createApp({ ...first.services, orm: secondOrm, em: () => secondOrm.em }).callback();
  second = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolveListen) => second.listen(0, '127.0.0.1', resolveListen));
  urls = [first.url, `http://127.0.0.1:${(second.address() as AddressInfo).port}`];
});
afterAll(async () => {
  await new Promise<void>((resolveClose) => {
    second.close(() => resolveClose());
    second.closeAllConnections();
  });
  await secondOrm.close();
  await first.close();
});

const keyWithRate = async (rate: Rate) =>
  (await createKey(first.database.orm.em.fork(), testMasters, uniqueAccountName('replicas'), ['*'], { rate })).key;

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

describe('rate limits across two API instances', () => {
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
