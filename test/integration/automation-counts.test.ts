import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { insertAutomation } from '../../src/automations/model/automation.sql.ts';
import { sealNewCredentials } from '../../src/automations/credentials/credential-store.ts';
import { migrate } from '../../src/orm.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

// Each account's number of automations, as PostgreSQL keeps it (migration 0025): what a create's
// quota is held by, whatever path inserts or deletes the rows.
let db: TestDatabase;
const masterKeys = { current: Buffer.alloc(32, 3), previous: [] };

beforeAll(async () => {
  db = await createTestDatabase({ migrated: false });
  await db.orm.migrator.up({ to: '0024-watcher-changes' });
  await execute(`insert into "accounts" values ('acct_a', 'a', now(), now()), ('acct_b', 'b', now(), now())`);
  // Automations made before the migration are counted by it.
  await insertRows('acct_a', 'before', 3);
  expect((await migrate(db.orm)).at(0)).toBe('0025-automation-counts');
});
afterAll(() => db?.drop());

const execute = (sql: string, params: unknown[] = []) => db.orm.em.getConnection().execute(sql, params);

/**
 * `count` automations of the account, by plain SQL as a fixture or an operator would insert them;
 * with their `network` once migration 0030 asks for one.
 */
const insertRows = (account: string, prefix: string, count: number, network?: string) =>
  execute(
    `insert into "automations" ("id", "account_id", "name", ${network ? '"network", ' : ''}"status", "trigger_type", "trigger", "action", "created_at", "updated_at")
      select 'auto_' || ? || n, ?, 'n', ${network ? '?, ' : ''}'inactive', 'schedule', '{"type":"schedule","cron":"@yearly"}',
        '{"type":"function","functionId":"func_x"}', now(), now()
      from generate_series(1, ?) as n`,
    [prefix, account, ...(network ? [network] : []), count],
  );

async function counts() {
  const rows = await execute(`select "account_id", "automations" from "automation_counts" order by 1`);
  return Object.fromEntries(rows.map((row) => [row.account_id as string, row.automations as number]));
}

/** An automation as a create makes it, with a price source URL to seal. */
function newAutomation(em: EntityManager, account: string) {
  const trigger = {
    type: 'price' as const,
    asset: 'NEO',
    currency: 'USD',
    condition: 'above' as const,
    value: '1',
    source: { url: 'https://prices.example/neo?key=k', path: 'price' },
  };
  const automation = em.create(
    Automation,
    {
      account,
      name: 'n',
      status: 'active',
      triggerType: 'price',
      trigger,
      action: { type: 'function', functionId: 'func_x', parameters: {} },
      functionId: 'func_x',
      watchFromBlock: null,
      priceSource: null,
      errorDetails: null,
      notify: [],
      gasBelow: [],
      network: 'default',
      budget: null,
    },
    { persist: false },
  );
  return { automation, ...sealNewCredentials(masterKeys, automation, { trigger }) };
}

describe('automation_counts', () => {
  it('counts the automations made before it, and follows every insert and delete, an account deleted with its own', async () => {
    expect(await counts()).toEqual({ acct_a: 3 });
    await insertRows('acct_b', 'b', 2, 'default');
    await execute(`delete from "automations" where "id" = 'auto_before1'`);
    expect(await counts()).toEqual({ acct_a: 2, acct_b: 2 });
    await execute(`delete from "accounts" where "id" = 'acct_b'`);
    expect(await counts()).toEqual({ acct_a: 2 });
  });

  it("inserts a create's row and credentials in one statement up to the limit it names, and refuses the next, storing nothing of it", async () => {
    const em = db.orm.em.fork();
    await execute(`insert into "accounts" values ('acct_c', 'c', now(), now())`);
    const first = newAutomation(em, 'acct_c');
    expect(await insertAutomation(em, first.automation, first.sealed, 1)).toBe(true);
    const next = newAutomation(em, 'acct_c');
    expect(await insertAutomation(em, next.automation, next.sealed, 1)).toBe(false);
    const stored = await execute(
      `select a."id", a."trigger"->'source'->>'url' as "shown", count(c."id")::int as "credentials"
        from "automations" a left join "automation_credentials" c on c."automation_id" = a."id"
        where a."account_id" = 'acct_c' group by a."id"`,
    );
    // Its column holds the mask, the URL is sealed beside it.
    expect(stored).toEqual([{ id: first.automation.id, shown: 'https://prices.example/n…/****', credentials: 1 }]);
    expect((await counts()).acct_c).toBe(1);
    // A statement that names no limit (a fixture, an operator's SQL) is counted, not refused.
    await insertRows('acct_c', 'c', 2, 'default');
    expect((await counts()).acct_c).toBe(3);
  });
});
