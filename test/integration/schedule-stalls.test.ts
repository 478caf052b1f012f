import { ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { triggerControlOf } from '../../src/automations/trigger-control.service.ts';
import { convergeTrigger } from '../../src/automations/triggers.control.ts';
import { registry } from '../../src/metrics/metrics.ts';
import {
  api,
  call,
  create,
  deploy,
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
    // Fires that fell due while the action named a queue no worker polls wait there; the schedule
    // rewritten, the next fires are recorded: the reconciler's passes, run here as the sweep would.
    const passedAndCounted = async () => {
      await converge(automation.id);
      return successes(automation.id);
    };
    expect(await until(passedAndCounted, (count) => count >= fired + 2, 90_000, 1_000)).toBeGreaterThanOrEqual(
      fired + 2,
    );
  }, 240_000);
});

describe('a schedule whose fires are their runs` workflows (overlap ALLOW_ALL)', () => {
  it('fires on while earlier runs still run: a long action holds back no fire, and the scheduler skips none', async () => {
    const slow = await deploy(
      'module.exports = async () => { await new Promise((r) => setTimeout(r, 4000)); return 1; };',
    );
    const automation = await create({
      status: 'active',
      trigger: { type: 'schedule', cron: '* * * * * *' },
      action: { type: 'function', functionId: slow },
    });
    const running = () =>
      api.database.orm.em.fork().count(AutomationRun, { automation: automation.id, status: 'running' });
    // Runs of 4 s fired every second: several run at once, each the workflow its fire started.
    expect(await until(running, (count) => count >= 2, 60_000)).toBeGreaterThanOrEqual(2);
    expect(
      await until(
        () => successes(automation.id),
        (count) => count >= 3,
        60_000,
      ),
    ).toBeGreaterThanOrEqual(3);
    const described = await scheduleOf(automation.id);
    expect(described.info.numActionsSkippedOverlap).toBe(0);
    const runs = await api.database.orm.em.fork().find(AutomationRun, { automation: automation.id });
    expect(runs.every((run) => run.id.startsWith(`${automation.id.replace(/^auto_/, 'run_')}-`))).toBe(true);
    await call('PATCH', `/automations/${automation.id}`, { status: 'inactive' });
  }, 120_000);
});

describe('a schedule written before a fire was its run`s workflow (scheduledFire, overlap SKIP)', () => {
  it('is converted whole by the reconciler, counted as no stall, its fires before and after recorded once each', async () => {
    const automation = await everySecond();
    const handle = api.services.temporal.client.schedule.getHandle(automation.id);
    // As the code before wrote it: its fire a workflow of its own, named after the automation.
    await handle.update((previous) => ({
      ...previous,
      action: { ...previous.action, workflowType: 'scheduledFire', workflowId: automation.id },
      policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.SKIP },
    }));
    const runs = () => api.database.orm.em.fork().find(AutomationRun, { automation: automation.id });
    const ownId = (id: string) => id.startsWith(`${automation.id.replace(/^auto_/, 'run_')}-`);
    // Fires of the former kind record runs under ids of their own, and start them.
    await until(
      async () => (await runs()).filter((run) => !ownId(run.id) && run.status === 'success').length,
      (count) => count >= 2,
      60_000,
    );
    const counted = await Promise.all(['action-changed', 'policies-changed'].map(stalls));
    await converge(automation.id);
    const converted = await scheduleOf(automation.id);
    expect(converted.action).toMatchObject({ workflowType: 'scheduledRun', args: [automation.id] });
    expect(converted.policies.overlap).toBe('ALLOW_ALL');
    expect(await Promise.all(['action-changed', 'policies-changed'].map(stalls))).toEqual(counted);
    await until(
      async () => (await runs()).filter((run) => ownId(run.id) && run.status === 'success').length,
      (count) => count >= 2,
      60_000,
    );
    await call('PATCH', `/automations/${automation.id}`, { status: 'inactive' });
    // One run a scheduled time, however it was recorded.
    const times = (await runs()).map((run) => (run.trigger as { scheduledAt: string }).scheduledAt);
    expect(new Set(times).size).toBe(times.length);
  }, 180_000);
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
