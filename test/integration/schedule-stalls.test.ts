import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { triggerControlOf } from '../../src/automations/trigger-control.service.ts';
import { convergeTrigger } from '../../src/automations/triggers.control.ts';
import { registry } from '../../src/metrics/metrics.ts';
import {
  api,
  create,
  echoFn,
  scheduleOf,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';
import { until } from '../support/polling.ts';
import { sweepAutomations } from '../../src/recovery/sweep-automations.ts';

// A 10 s catchup window (Temporal's least): a fire running past 20 s counts as never ending. The
// recovery sweep's own pass is kept out of the way: the tests converge when they mean to.
beforeAll(async () => {
  await startAutomationsApi({ env: { NEOFLOW_SCHEDULE_CATCHUP_SECONDS: '10', NEOFLOW_RECOVERY_SECONDS: '3600' } });
}, 180_000);
afterAll(async () => {
  await stopAutomationsApi();
});

const stalls = async (kind: string) => {
  const metric = await registry.getSingleMetricAsString('neoflow_schedule_stalls_total');
  return Number(new RegExp(`kind="${kind}"} (\\d+)`).exec(metric)?.[1] ?? 0);
};

const converge = async (automationId: string) => {
  const row = await api.database.orm.em.fork().findOneOrFail(Automation, automationId, { populate: ['account'] });
  await convergeTrigger(triggerControlOf(api.services), row);
};

/** An active automation whose schedule fires every second, running the echo function. */
const everySecond = () =>
  create({
    status: 'active',
    trigger: { type: 'schedule', cron: '* * * * * *' },
    action: { type: 'function', functionId: echoFn },
  });

const successes = (automationId: string) =>
  api.database.orm.em.fork().count(AutomationRun, { automation: automationId, status: 'success' });

describe('an active schedule changed underneath its row so that it stops firing', () => {
  it('is rewritten from its row by the reconciler, each way told by kind: missing, paused, limited actions, policies, action, spec', async () => {
    const automation = await everySecond();
    const handle = api.services.temporal.client.schedule.getHandle(automation.id);
    const written = await scheduleOf(automation.id);
    type Described = typeof written;
    const stops: [string, () => Promise<unknown>, (described: Described) => boolean][] = [
      [
        'missing',
        async () => {
          await handle.delete();
          // The server answers describes of a deleted schedule until its scheduler has closed.
          const gone = () =>
            scheduleOf(automation.id).then(
              () => false,
              () => true,
            );
          expect(await until(gone, Boolean, 30_000)).toBe(true);
        },
        (described) => !described.state.paused,
      ],
      [
        'paused',
        // What the pause-on-failure policy does: it pauses and overwrites the note.
        () => handle.pause('Schedule paused due to workflow failure: scheduledFire failed'),
        (described) => !described.state.paused && described.state.note === written.state.note,
      ],
      [
        'limited-actions',
        () => handle.update((previous) => ({ ...previous, state: { ...previous.state, remainingActions: 0 } })),
        (described) => described.state.remainingActions === undefined,
      ],
      [
        'policies-changed',
        () => handle.update((previous) => ({ ...previous, policies: { ...previous.policies, pauseOnFailure: true } })),
        (described) => !described.policies.pauseOnFailure,
      ],
      [
        'action-changed',
        () =>
          handle.update((previous) => ({
            ...previous,
            action: { ...previous.action, taskQueue: 'a-queue-no-worker-polls' },
          })),
        (described) =>
          described.action.type === 'startWorkflow' && described.action.taskQueue === written.action.taskQueue,
      ],
      [
        'spec-changed',
        () =>
          handle.update((previous) => ({
            ...previous,
            spec: { ...previous.spec, endAt: new Date(Date.now() - 60_000) },
          })),
        (described) => described.info.nextActionTimes.length > 0,
      ],
    ];
    for (const [kind, stop, repaired] of stops) {
      await stop();
      const before = await stalls(kind);
      await converge(automation.id);
      expect(await stalls(kind), kind).toBe(before + 1);
      expect(repaired(await scheduleOf(automation.id)), kind).toBe(true);
      // Once rewritten, nothing differs: the next pass finds no stall.
      await converge(automation.id);
      expect(await stalls(kind), kind).toBe(before + 1);
    }
    const fired = await successes(automation.id);
    // A fire that fell due while the action named a queue no worker polls never ends, and overlap
    // SKIP drops every fire behind it until a pass ends it (on a busy machine one such fire is
    // likely): the reconciler's passes, run here as the sweep would, make it fire again.
    const passedAndCounted = async () => {
      await converge(automation.id);
      return successes(automation.id);
    };
    expect(await until(passedAndCounted, (count) => count >= fired + 2, 90_000, 1_000)).toBeGreaterThanOrEqual(
      fired + 2,
    );
  }, 240_000);
});

describe('an active schedule that stopped firing', () => {
  it('is made to fire again by the reconciler when one fire never ends and overlap SKIP drops every fire behind it', async () => {
    const automation = await everySecond();
    // Holding the automation's row keeps the next fire from recording its run: it hangs, as a fire
    // that never ends would, and the schedule skips every second behind it.
    const holder = new pg.Client({ connectionString: api.database.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query(`select 1 from "automations" where "id" = $1 for update`, [automation.id]);
    const hanging = await until(
      () => scheduleOf(automation.id),
      // A skip a second: the fire has hung for longer than 20 s.
      (described) => described.info.runningActions.length > 0 && described.info.numActionsSkippedOverlap > 25,
      120_000,
    );
    expect(hanging.info.numActionsSkippedOverlap).toBeGreaterThan(25);
    const fire = hanging.info.runningActions[0]!.workflow;
    const before = await stalls('fire-never-ends');

    const row = await api.database.orm.em.fork().findOneOrFail(Automation, automation.id, { populate: ['account'] });
    await convergeTrigger(triggerControlOf(api.services), row);

    const ended = await api.services.temporal.client.workflow
      .getHandle(fire.workflowId, fire.firstExecutionRunId)
      .describe();
    expect(ended.status.name).toBe('TERMINATED');
    expect(await stalls('fire-never-ends')).toBe(before + 1);
    await holder.query('rollback');
    await holder.end();
    // The schedule goes on: fires after the hanging one are recorded again.
    const successes = () =>
      api.database.orm.em.fork().count(AutomationRun, { automation: automation.id, status: 'success' });
    expect(await until(successes, (count) => count >= 2, 60_000)).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

describe('an active schedule whose rows show no fire since one fell due long ago', () => {
  it('is created anew by the reconciler however healthy its describe looks, and one whose fires are on time is left alone', async () => {
    const automation = await create({
      status: 'active',
      trigger: { type: 'schedule', cron: '* * * * *' },
      action: { type: 'function', functionId: echoFn },
    });
    const written = (await scheduleOf(automation.id)).info.createdAt;
    const sweep = () => sweepAutomations(api.database.orm.em.fork(), triggerControlOf(api.services), '');
    const before = await stalls('no-fires-recorded');

    // Activated just now: its first fire is not due yet, and its schedule stays as written.
    expect((await sweep()).failed).toEqual([]);
    expect((await scheduleOf(automation.id)).info.createdAt).toEqual(written);

    // As the rows of a schedule whose scheduler stopped read: activated an hour ago, no run since.
    await api.database.orm.em
      .fork()
      .getConnection()
      .execute(`update "automations" set "updated_at" = now() - interval '1 hour' where "id" = ?`, [automation.id]);
    expect((await sweep()).failed).toEqual([]);
    const recreated = await scheduleOf(automation.id);
    expect(recreated.info.createdAt.getTime()).toBeGreaterThan(written.getTime());
    expect(recreated.state.paused).toBe(false);
    expect(await stalls('no-fires-recorded')).toBeGreaterThanOrEqual(before + 1);
  }, 120_000);
});

describe('an active schedule whose rows show a fire recorded since its row changed long ago', () => {
  it('is left alone by the reconciler: its last run, not its row, tells when a fire was last seen', async () => {
    const automation = await create({
      status: 'active',
      trigger: { type: 'schedule', cron: '* * * * *' },
      action: { type: 'function', functionId: echoFn },
    });
    const written = (await scheduleOf(automation.id)).info.createdAt;
    // Activated an hour ago, and fired since: a run recorded just now.
    const connection = api.database.orm.em.fork().getConnection();
    await connection.execute(`update "automations" set "updated_at" = now() - interval '1 hour' where "id" = ?`, [
      automation.id,
    ]);
    await connection.execute(
      `insert into "automation_runs" ("id", "automation_id", "account_id", "network", "fire_key", "status", "trigger", "dispatched", "started_at", "completed_at")
       select 'run_' || "id", "id", "account_id", "network", 'schedule:recent', 'success', '{"type":"schedule"}', true, now(), now()
       from "automations" where "id" = ?`,
      [automation.id],
    );

    const sweep = () => sweepAutomations(api.database.orm.em.fork(), triggerControlOf(api.services), '');
    expect((await sweep()).failed).toEqual([]);
    // Not created anew (the pass goes over every automation: the counter counts the others too).
    expect((await scheduleOf(automation.id)).info.createdAt).toEqual(written);
  }, 120_000);
});

describe('an automation moved to error while its schedule still fires', () => {
  it('records no fire scheduled after the move, before the reconciler pauses its schedule', async () => {
    const automation = await everySecond();
    await until(
      () => successes(automation.id),
      (count) => count >= 1,
      60_000,
    );
    // As a worker moves it (budget exhausted, contract gone): the row only; the schedule fires on.
    const movedAt = new Date();
    await api.database.orm.em
      .fork()
      .getConnection()
      .execute(`update "automations" set "status" = 'error', "updated_at" = ? where "id" = ?`, [
        movedAt,
        automation.id,
      ]);
    const takenBefore = (await scheduleOf(automation.id)).info.numActionsTaken;
    // The schedule takes at least three more actions (it is not paused)...
    await until(
      async () => (await scheduleOf(automation.id)).info.numActionsTaken,
      (taken) => taken >= takenBefore + 3,
      60_000,
    );
    await until(
      async () => (await scheduleOf(automation.id)).info.runningActions.length,
      (running) => running === 0,
      30_000,
    );
    // ...and none of them is recorded as a run.
    const runs = await api.database.orm.em.fork().find(AutomationRun, { automation: automation.id });
    const late = runs.filter((run) => new Date((run.trigger as { scheduledAt: string }).scheduledAt) > movedAt);
    expect(late).toEqual([]);
    expect((await scheduleOf(automation.id)).state.paused).toBe(false);
  }, 120_000);
});
