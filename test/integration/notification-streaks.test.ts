import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { noteRunEnd } from '../../src/automations/notifications/run-end.ts';
import { endRunById, recordRuns } from '../../src/automations/runs/fires.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { issueKey } from '../support/keys.ts';

let db: TestDatabase;
let accountId: string;
beforeAll(async () => {
  db = await createTestDatabase();
  ({ accountId } = await issueKey(db.orm));
});
afterAll(async () => {
  await db?.drop();
});

const fork = () => db.orm.em.fork();
const channel = { type: 'webhook' as const, url: 'https://hooks.example.com/streaks', signingSecret: 'HOOK' };

/** An automation told of failures after `afterFailures` in a row, and of recoveries, with `count` runs fired. */
async function automationWithRuns(afterFailures: number, count: number) {
  const em = fork();
  const automation = em.create(Automation, {
    account: accountId,
    name: 'streaks',
    status: 'active',
    triggerType: 'schedule',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { type: 'webhook', url: 'https://hooks.example.com/action', signingSecret: 'HOOK' },
    functionId: null,
    watchFromBlock: null,
    errorDetails: null,
    notify: [{ on: ['failure', 'recovery'], afterFailures, channel }],
    gasBelow: [],
    network: 'default',
  });
  await em.flush();
  const firings = Array.from({ length: count }, (_, index) => ({
    automation,
    fireKey: `manual:${index}`,
    payload: { type: 'manual' as const },
  }));
  const runs = await recordRuns(em, firings);
  return { automationId: automation.id, runIds: runs.map((run) => run.runId) };
}

const notifications = async (automationId: string) =>
  fork().execute<{ event: string; run_id: string }[]>(
    `select "event", "run_id" from "notifications" where "automation_id" = ? order by "created_at", "id"`,
    [automationId],
  );

/** Ends a run in a transaction left open: its end is stamped now, but seen only once committed. */
async function endHeldOpen(runId: string) {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('begin');
  await client.query(`update "automation_runs" set "status" = 'failure', "completed_at" = now() where "id" = $1`, [
    runId,
  ]);
  return {
    commit: async () => {
      await client.query('commit');
      await client.end();
    },
  };
}

describe('failure streaks', () => {
  it('tell a failure once when two runs end together and neither sees the other end before its own', async () => {
    const { automationId, runIds } = await automationWithRuns(3, 5);
    const [first, second, third, fourth, fifth] = runIds as [string, string, string, string, string];
    await endRunById(fork(), first, 'failure');
    expect((await noteRunEnd(fork(), first)).notifications).toEqual([]);

    // The second ends first (its end stamped earlier) but commits after the third has looked.
    const held = await endHeldOpen(second);
    await endRunById(fork(), third, 'failure');
    expect((await noteRunEnd(fork(), third)).notifications).toEqual([]);
    await held.commit();
    const told = await noteRunEnd(fork(), second);
    expect(told.notifications).toHaveLength(1);

    // The streak goes on: told already, the fourth failure records nothing new.
    await endRunById(fork(), fourth, 'failure');
    expect((await noteRunEnd(fork(), fourth)).notifications).toEqual(told.notifications);
    expect(await notifications(automationId)).toEqual([{ event: 'failure', run_id: second }]);

    await endRunById(fork(), fifth, 'success');
    expect((await noteRunEnd(fork(), fifth)).notifications).toHaveLength(1);
    expect((await notifications(automationId)).map((row) => row.event)).toEqual(['failure', 'recovery']);
  });

  it('tell a failure once when every run of the streak looks after all have ended', async () => {
    const { automationId, runIds } = await automationWithRuns(2, 4);
    for (const runId of runIds) await endRunById(fork(), runId, 'failure');
    const told = await Promise.all(runIds.map((runId) => noteRunEnd(fork(), runId)));
    const ids = new Set(told.flatMap((notices) => notices.notifications));
    expect(ids.size).toBe(1);
    expect(await notifications(automationId)).toHaveLength(1);
  });
});
