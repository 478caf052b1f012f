import fc from 'fast-check';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeToken } from '../../src/ratelimit/rate-limit-bucket.sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey } from '../support/keys.ts';

const rate = { requests: 5, windowSeconds: 1 };
const perSecond = rate.requests / rate.windowSeconds;

let db: TestDatabase;
let keyId: string;
beforeAll(async () => {
  db = await createTestDatabase();
  keyId = (await issueKey(db.orm)).keyId;
});
afterAll(() => db.drop());

/** A request pattern: bursts of concurrent requests, each followed by a pause. */
const pattern = fc.array(
  fc.record({ burst: fc.integer({ min: 1, max: 8 }), pauseMs: fc.integer({ min: 0, max: 250 }) }),
  {
    minLength: 1,
    maxLength: 5,
  },
);

async function replay(steps: { burst: number; pauseMs: number }[]) {
  await db.orm.em.getConnection().execute('delete from "rate_limit_buckets" where "key_id" = ?', [keyId]);
  const started = performance.now();
  let accepted = 0;
  for (const { burst, pauseMs } of steps) {
    const decisions = await Promise.all(Array.from({ length: burst }, () => takeToken(db.orm.em.fork(), keyId, rate)));
    accepted += decisions.filter((decision) => decision.allowed).length;
    await sleep(pauseMs);
  }
  return {
    accepted,
    total: steps.reduce((sum, step) => sum + step.burst, 0),
    elapsed: (performance.now() - started) / 1000,
  };
}

describe('token bucket in PostgreSQL', () => {
  it('accepts at most burst + rate × elapsed over any request pattern, and never less than the burst', async () => {
    await fc.assert(
      fc.asyncProperty(pattern, async (steps) => {
        const { accepted, total, elapsed } = await replay(steps);
        expect(accepted).toBeLessThanOrEqual(rate.requests + perSecond * elapsed);
        expect(accepted).toBeGreaterThanOrEqual(Math.min(total, rate.requests));
      }),
      { numRuns: 12 },
    );
  });

  it('refills continuously and reports the wait for the next token', async () => {
    const { keyId: slowKey } = await issueKey(db.orm);
    // A token every 2 s: the first three takes fit in that however loaded the machine, and the
    // wait below is the refill under test, with no upper bound a slow machine could overrun.
    const slow = { requests: 2, windowSeconds: 4 };
    const take = () => takeToken(db.orm.em.fork(), slowKey, slow);
    expect(await take()).toMatchObject({ allowed: true, remaining: 1, limit: 2 });
    expect(await take()).toMatchObject({ allowed: true, remaining: 0 });
    expect(await take()).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2 });
    await sleep(2_100);
    expect(await take()).toMatchObject({ allowed: true });
  });

  it('forgets a key’s bucket with the key', async () => {
    const { keyId: doomed } = await issueKey(db.orm);
    await takeToken(db.orm.em.fork(), doomed, rate);
    const connection = db.orm.em.getConnection();
    await connection.execute('delete from "api_keys" where "id" = ?', [doomed]);
    const left = await connection.execute('select 1 from "rate_limit_buckets" where "key_id" = ?', [doomed]);
    expect(left).toHaveLength(0);
  });
});
