import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSql } from '../../src/api/idempotent-request.sql.ts';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { networksWatchingBlocks, watchingBlocksSql } from '../../src/automations/model/automation.sql.ts';
import { blockTriggerTypes } from '../../src/automations/model/state-trigger-kinds.ts';
import { sealedTriggerCredentialsSql } from '../../src/automations/credentials/credential.sql.ts';
import {
  activePriceRowsSql,
  unnamedPriceRows,
  unnamedPriceRowsSql,
} from '../../src/automations/price/automation-price.sql.ts';
import { streakSql } from '../../src/automations/notifications/run-streak.sql.ts';
import { statsQuery } from '../../src/automations/runs/run-stats.sql.ts';
import { functionStatsSql } from '../../src/functions/execution.sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey } from '../support/keys.ts';

// The queries run on every run's end, every keyed request and every read of statistics, planned
// against a history large enough for PostgreSQL to choose as it would in production.
let db: TestDatabase;
let client: pg.Client;
let accountId: string;
let functionId: string;
let automationId: string;
const history = 10_000;
/** Functions, automations and accounts beside the one whose queries are planned. */
const others = 5;

/** `history` keys claimed over the last day, and `expired` older ones not yet dropped. */
const insertKeys = (account: string, expired: number) =>
  client.query(
    `insert into "idempotent_requests" ("account_id", "key", "request_hash", "claimed_at", "answered")
     select $1, 'key-' || n, repeat('0', 64), now() - (n * 86400 / $2 || ' seconds')::interval, true
     from generate_series(1, $2) as n
     union all
     select $1, 'old-' || n, repeat('0', 64), now() - interval '2 days', true from generate_series(1, $3) as n`,
    [account, history, expired],
  );

/** A function, and an automation that runs it, of the account: one of many sharing the tables. */
async function functionAndAutomation(name: string) {
  const fn = await storeFunction(db.orm, accountId, name);
  const em = db.orm.em.fork();
  const automation = em.create(Automation, {
    account: accountId,
    name,
    status: 'active',
    triggerType: 'schedule',
    trigger: { type: 'schedule', cron: '* * * * * *' },
    action: { type: 'function', functionId: fn.id, parameters: {} },
    functionId: fn.id,
    watchFromBlock: null,
    errorDetails: null,
    notify: [],
    gasBelow: [],
    network: 'default',
  });
  await em.flush();
  return { functionId: fn.id, automationId: automation.id };
}

/** Successes every 500 runs, failures between. */
const mixed = `case when n % 500 = 0 then 'success' else 'failure' end`;
/** Successes, then a streak of failures as long (the newest runs: `n` counts back in time). */
const streakAfterSuccesses = `case when n > ${history / 2} then 'success' else 'failure' end`;

/** `history` runs of the automation, their statuses by `status` (SQL of `n`, 1 the newest). */
const insertRuns = (automation: string, prefix: string, status: string) =>
  client.query(
    `insert into "automation_runs" ("id", "automation_id", "account_id", "network", "fire_key", "status", "trigger", "dispatched", "started_at", "completed_at")
     select $3 || n, $1, $2, 'default', 'schedule:' || n, ${status},
            '{"type":"schedule"}', true, now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval + interval '10 ms'
     from generate_series(1, $4) as n`,
    [automation, accountId, prefix, history],
  );

const insertExecutions = (fn: string, prefix: string) =>
  client.query(
    `insert into "executions" ("id", "function_id", "account_id", "status", "params", "logs", "trigger", "secrets_read", "started_at", "completed_at", "duration")
     select $3 || n, $1, $2, case when n % 7 = 0 then 'failed' else 'completed' end, '{}', '[]', '{"type":"api"}', '[]',
            now() - (n || ' seconds')::interval, now() - (n || ' seconds')::interval + interval '5 ms', 5
     from generate_series(1, $4) as n`,
    [fn, accountId, prefix, history],
  );

/** Active price automations over `sources` sources (`source-<n>`), each with its trigger's state. */
async function insertPriceAutomations(count: number, sources: number) {
  await client.query(
    `insert into "automations" ("id", "account_id", "name", "network", "status", "trigger_type", "trigger", "action",
        "created_at", "updated_at", "price_source")
     select 'auto_price_' || n, $1, 'price ' || n, 'default', 'active', 'price',
            '{"type":"price","asset":"NEO","currency":"USD","condition":"above","value":"12.5"}',
            jsonb_build_object('type', 'function', 'functionId', $2::text, 'parameters', '{}'::jsonb),
            now(), now(), 'source-' || n % $4
     from generate_series(1, $3) as n`,
    [accountId, functionId, count, sources],
  );
  await client.query(
    `insert into "price_trigger_states" ("automation_id", "condition_key", "armed", "checked_at", "poll_key")
     select "id", '["NEO","USD","above","12.5"]', true, now(), 'price:run:0' from "automations"
     where "trigger_type" = 'price'`,
  );
  await client.query(
    `insert into "automation_credentials" ("automation_id", "path", "ciphertext", "wrapped_key", "master_key_id")
     select "id", 'trigger.source.url', '\\x00', '\\x00', 'k1' from "automations" where "trigger_type" = 'price'`,
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  ({ accountId } = await issueKey(db.orm));
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  for (let other = 0; other < others; other += 1) {
    const ids = await functionAndAutomation(`other-${other}`);
    await insertRuns(ids.automationId, `run_other_${other}_`, mixed);
    await insertExecutions(ids.functionId, `exec_other_${other}_`);
    const account = (await issueKey(db.orm)).accountId;
    // Other accounts' keys of the last day, as many as this one's.
    await insertKeys(account, 0);
  }
  ({ functionId, automationId } = await functionAndAutomation('planned'));
  await insertRuns(automationId, 'run_', streakAfterSuccesses);
  await insertExecutions(functionId, 'exec_');
  await insertKeys(accountId, 10);
  // The price triggers of bench:scale at N = 10,000: 3,000 over 10 sources.
  await insertPriceAutomations(3_000, 10);
  // As autovacuum leaves a table: statistics current, its visibility map set.
  await client.query('vacuum analyze');
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Every node of the plan PostgreSQL chooses (and, told to, runs) for `sql` (with `?` placeholders) and `params`. */
async function planOf(sql: string, params: unknown[], { analyze = false } = {}): Promise<PlanNode[]> {
  let index = 0;
  const numbered = sql.replace(/\?/g, () => `$${++index}`);
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `explain (format json${analyze ? ', analyze' : ''}) ${numbered}`,
    params,
  );
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    node.Plans?.forEach(walk);
  };
  walk(rows[0]!['QUERY PLAN'][0].Plan);
  return nodes;
}

const scansOf = (nodes: PlanNode[], table: string) =>
  nodes.filter((node) => node['Relation Name'] === table).map((node) => [node['Node Type'], node['Index Name']]);

describe('the hot queries read by index, not the whole history', () => {
  it("a run's failure streak: the nearest breaks and the failures between, each by its partial index", async () => {
    // A run amid 5,000 failures that follow 5,000 successes, rules waiting for up to 10 in a row.
    const nodes = await planOf(streakSql, ['run_2500', 11], { analyze: true });
    const scans = nodes.filter((node) => node['Relation Name'] === 'automation_runs');
    expect(scans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(scans.map((node) => node['Index Name'])).toEqual(
      expect.arrayContaining([
        'automation_runs_pkey',
        'automation_runs_streak_breaks_index',
        'automation_runs_failures_index',
      ]),
    );
    // The run, the nearest success before it (none after), and at most 11 failures.
    const rowsRead = scans.reduce((sum, node) => sum + node['Actual Rows']! * (node['Actual Loops'] ?? 1), 0);
    expect(rowsRead).toBeLessThanOrEqual(13);
  });

  it("an automation's statistics: counted from its runs' index alone", async () => {
    const scans = scansOf(await planOf(statsQuery, [automationId, automationId]), 'automation_runs');
    expect(scans).toContainEqual(['Index Only Scan', 'automation_runs_automation_id_started_at_status_index']);
    expect(scans.every(([type]) => type === 'Index Only Scan')).toBe(true);
  });

  it("a function's statistics: counted from its executions' index alone", async () => {
    const scans = scansOf(await planOf(functionStatsSql, [functionId]), 'executions');
    expect(scans).toEqual([['Index Only Scan', 'executions_function_id_started_at_index']]);
  });

  it("a keyed request drops its account's expired keys by their claim time", async () => {
    const nodes = await planOf(claimSql, [accountId, 'new', accountId, 'new', 'h'.repeat(64)]);
    expect(scansOf(nodes, 'idempotent_requests')).not.toContainEqual(expect.arrayContaining(['Seq Scan']));
    // An index scan, or a bitmap one (whose index node names no table).
    expect(nodes.map((node) => node['Index Name'])).toContain('idempotent_requests_account_id_claimed_at_index');
  });

  it("a price source's poll: its own automations' states, each by its key, not every source's", async () => {
    const nodes = await planOf(activePriceRowsSql, ['source-3'], { analyze: true });
    const states = nodes.filter((node) => node['Relation Name'] === 'price_trigger_states');
    expect(states.map((node) => [node['Node Type'], node['Index Name']])).toEqual([
      ['Index Scan', 'price_trigger_states_pkey'],
    ]);
    const rowsRead = states.reduce((sum, node) => sum + node['Actual Rows']! * (node['Actual Loops'] ?? 1), 0);
    expect(rowsRead).toBe(300);
  });

  it("a reconciler pass: the active price automations without a source, by the sources' index, not every automation", async () => {
    const nodes = await planOf(unnamedPriceRowsSql, ['', 100], { analyze: true });
    const automations = nodes.filter((node) => node['Relation Name'] === 'automations');
    expect(automations.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(automations.map((node) => node['Index Name'])).not.toContain('automations_pkey');
    expect(nodes.map((node) => node['Index Name'])).toContain('automations_price_source_index');
    // What it finds: written before sources were named, the active one (the inactive is named once activated).
    await client.query(
      `insert into "automations" ("id", "account_id", "name", "network", "status", "trigger_type", "trigger", "action", "created_at", "updated_at")
       select 'auto_unnamed_' || status, $1, 'unnamed ' || status, 'default', status, 'price',
              '{"type":"price","asset":"NEO","currency":"USD","condition":"above","value":"12.5"}', '{}', now(), now()
       from unnest(array['active', 'inactive']) as status`,
      [accountId],
    );
    try {
      const rows = await unnamedPriceRows(db.orm.em.fork(), '', 100);
      expect(rows.map((row) => row.id)).toEqual(['auto_unnamed_active']);
    } finally {
      await client.query(`delete from "automations" where "id" like 'auto_unnamed_%'`);
    }
  });

  it('a reconciler pass: which networks automations watch blocks of, from the first one found of each, not a count of them', async () => {
    // 3,000 active price automations beside none that watches blocks; then 3,000 that do, of one network.
    const networks = ['default', 'other'];
    expect(await networksWatchingBlocks(db.orm.em.fork(), networks)).toEqual([]);
    await client.query(`update "automations" set "trigger_type" = 'blockchain' where "id" like 'auto_price_%'`);
    try {
      await client.query('analyze "automations"');
      expect(await networksWatchingBlocks(db.orm.em.fork(), networks)).toEqual(['default']);
      // Of each network, a scan of the index or the table, stopped at the first watcher; none at all of the other's.
      for (const network of networks) {
        const nodes = await planOf(watchingBlocksSql, [network, blockTriggerTypes], { analyze: true });
        const automations = nodes.filter((node) => node['Relation Name'] === 'automations');
        const rowsRead = automations.reduce(
          (sum, node) =>
            sum + (node['Actual Rows']! + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1),
          0,
        );
        expect(rowsRead).toBeLessThanOrEqual(10);
      }
    } finally {
      await client.query(`update "automations" set "trigger_type" = 'price' where "id" like 'auto_price_%'`);
      await client.query('analyze "automations"');
    }
  });

  it("a price source's poll: its automations' trigger credentials, each by the automation's index, not every automation's", async () => {
    const wanted = Array.from({ length: 300 }, (_, n) => `auto_price_${n * 10 + 3}`);
    const nodes = await planOf(sealedTriggerCredentialsSql, [wanted], { analyze: true });
    const credentials = nodes.filter((node) => node['Relation Name'] === 'automation_credentials');
    expect(credentials.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    const rowsRead = credentials.reduce((sum, node) => sum + node['Actual Rows']! * (node['Actual Loops'] ?? 1), 0);
    expect(rowsRead).toBe(300);
  });
});
