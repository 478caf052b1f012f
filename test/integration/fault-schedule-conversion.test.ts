import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScheduleOverlapPolicy, type WorkflowExecutionInfo } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { triggerControlOf } from '../../src/automations/trigger-control.service.ts';
import { convergeTrigger } from '../../src/automations/triggers.control.ts';
import { recoveryWorkflowId } from '../../src/recovery/recovery-loop.ts';
import { sweepAutomations } from '../../src/recovery/sweep-automations.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { automationsClient } from '../support/automations.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';
import { testWorkerEnv } from '../support/temporal.ts';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.ts';

/**
 * A schedule written before issue 50 (its fire `scheduledFire`, a workflow of its own that records
 * the run and starts `runAction`; overlap SKIP) is converted by the reconciler in one update to
 * fire `scheduledRun`, the run's own workflow. A worker killed during the conversion leaves some
 * schedules converted whole and others not yet, with fires of both kinds in flight: this file makes
 * that state on purpose (the reconciler's own calls, some schedules before the kill and the pass
 * over the rest after it) and counts what was recorded against what the schedules fired.
 *
 * The reconciler's loop is kept out of the way (ended before a worker runs it): the test makes its
 * passes when it means to. The catchup window is long, so that no fire is dropped as late while no
 * worker runs.
 */
const env = { NEOFLOW_SCHEDULE_CATCHUP_SECONDS: '300' };

let api: TestApi;
let scratch: string;
let taskQueue: string;
let client: ReturnType<typeof automationsClient>;
const workers: WorkerProcess[] = [];

const startWorker = async () => {
  const logFile = join(scratch, `worker-${workers.length + 1}.log`);
  const worker = await startWorkerProcess(
    api.database.url,
    taskQueue,
    join(scratch, 'data'),
    logFile,
    testWorkerEnv(api.database.url, env),
  );
  workers.push(worker);
  return worker;
};

beforeAll(async () => {
  taskQueue = `fault-conversion-${randomBytes(4).toString('hex')}`;
  scratch = await mkdtemp(join(tmpdir(), 'neoflow-fault-conversion-'));
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue, ...env });
  client = automationsClient(api.url, (await issueKey(api.database.orm)).key);
  // Its first pass would run as the first worker starts, and convert what the test writes as before.
  await api.services.temporal.client.workflow.getHandle(recoveryWorkflowId(taskQueue)).terminate('the test converges');
}, 180_000);
afterAll(async () => {
  await Promise.allSettled(workers.map((worker) => worker.stop()));
  await api?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const schedules = () => api.services.temporal.client.schedule;

/** Rewrites the automation's schedule as the code before issue 50 wrote it. */
const writeAsBefore = (automationId: string) =>
  schedules()
    .getHandle(automationId)
    .update((previous) => ({
      ...previous,
      action: { ...previous.action, workflowType: 'scheduledFire', workflowId: automationId },
      policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.SKIP },
    }));

/** What the reconciler does to one automation's schedule in its pass (sweep-automations.ts). */
const converge = async (automationId: string) => {
  const row = await api.database.orm.em.fork().findOneOrFail(Automation, automationId, { populate: ['account'] });
  await convergeTrigger(triggerControlOf(api.services), row);
};

interface Run {
  id: string;
  automationId: string;
  status: string;
  scheduledAt: string;
  error: unknown;
  /** Recorded by `scheduledRun` under its own workflow id, not by a `scheduledFire` of the code before. */
  ownWorkflow: boolean;
}

const ownPrefix = (automationId: string) => `${automationId.replace(/^auto_/, 'run_')}-`;

async function runsOf(automationIds: string[]): Promise<Run[]> {
  const rows = await api.database.orm.em.fork().find(AutomationRun, { automation: { $in: automationIds } });
  return rows.map((row) => {
    const automationId = row.automation.id;
    const scheduledAt = new Date((row.trigger as { scheduledAt: string }).scheduledAt).toISOString();
    return {
      id: row.id,
      automationId,
      status: row.status,
      scheduledAt,
      error: row.error,
      ownWorkflow: row.id.startsWith(ownPrefix(automationId)),
    };
  });
}

/** A fire's workflow: the schedule names it after the action's workflow id and the scheduled time. */
interface Fire {
  automationId: string;
  scheduledAt: string;
  info: WorkflowExecutionInfo;
}

/** The workflow id of a fire: what the schedule's action names its workflows, and the scheduled time. */
function fireId(workflowId: string) {
  const [, prefix, time] = /^(.*)-(\d{4}-\d\d-\d\dT[\d:.]+Z)$/.exec(workflowId)!;
  return { prefix: prefix!, scheduledAt: new Date(time!).toISOString() };
}

async function firesOf(automationIds: string[]): Promise<Fire[]> {
  const query = `TemporalScheduledById IN (${automationIds.map((id) => `'${id}'`).join(', ')})`;
  const fires: Fire[] = [];
  for await (const info of api.services.temporal.client.workflow.list({ query })) {
    const { prefix, scheduledAt } = fireId(info.workflowId);
    const automationId = automationIds.find((id) => prefix === id || `${prefix}-` === ownPrefix(id))!;
    fires.push({ automationId, scheduledAt, info });
  }
  return fires;
}

const actionsTaken = async (automationIds: string[]) => {
  const described = await Promise.all(automationIds.map((id) => schedules().getHandle(id).describe()));
  return described.reduce((sum, schedule) => sum + schedule.info.numActionsTaken, 0);
};

const countBy = <T>(items: T[], key: (item: T) => string) =>
  Object.fromEntries([...Map.groupBy(items, key)].map(([name, group]) => [name, group.length]));

const perAutomation = (automationIds: string[], runs: Run[], holds: (run: Run) => boolean) =>
  automationIds.every((id) => runs.some((run) => run.automationId === id && holds(run)));

describe('fault: kill -9 of the worker while schedules written before issue 50 are converted', () => {
  it('records every scheduled time the schedules fired exactly once, fires of either kind in flight across the kill and the conversion', async () => {
    // Runs of 1.5 s fired every second: a run is in flight at any moment, its first step or its action.
    const functionId = await client.deploy(
      'module.exports = async () => { await new Promise((r) => setTimeout(r, 1500)); return 1; };',
    );
    await startWorker();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await client.create({
        name: `every second ${i}`,
        status: 'active',
        trigger: { type: 'schedule', cron: '* * * * * *' },
        action: { type: 'function', functionId },
      });
      await writeAsBefore(id);
      ids.push(id);
    }
    const [convertedFirst, convertedAfter] = [ids.slice(0, 2), ids.slice(2)];
    const runs = () => runsOf(ids);
    // Fires of the former kind record runs under ids of their own, and start them.
    const formerRan = await until(
      runs,
      (all) => perAutomation(ids, all, (run) => !run.ownWorkflow && run.status === 'success'),
      90_000,
    );
    expect(perAutomation(ids, formerRan, (run) => !run.ownWorkflow && run.status === 'success')).toBe(true);

    // The reconciler converts some schedules, then its worker is killed before it converts the rest:
    // while fires of both kinds are in flight (their runs recorded, their actions running).
    for (const id of convertedFirst) await converge(id);
    const inFlight = (all: Run[]) =>
      perAutomation(convertedFirst, all, (run) => run.ownWorkflow && run.status === 'running') &&
      perAutomation(convertedAfter, all, (run) => !run.ownWorkflow && run.status === 'running');
    const atKill = await until(runs, inFlight, 60_000, 50);
    const worker = workers.at(-1)!;
    worker.process.child.kill('SIGKILL');
    expect(await worker.process.exited).toBe('SIGKILL');
    expect(
      inFlight(atKill),
      JSON.stringify(countBy(atKill, (run) => `${run.automationId} ${run.ownWorkflow} ${run.status}`)),
    ).toBe(true);
    const runningAtKill = atKill.filter((run) => run.status === 'running');

    // With no worker, each schedule not yet converted starts a scheduledFire that stays running.
    const pendingFires = async () =>
      (await Promise.all(convertedAfter.map((id) => schedules().getHandle(id).describe()))).map(
        (schedule) => schedule.info.runningActions,
      );
    const pending = (await until(pendingFires, (each) => each.every((actions) => actions.length > 0), 60_000)).flat();
    expect(pending.length).toBeGreaterThanOrEqual(convertedAfter.length);

    // The reconciler's pass converts the rest, each schedule in one update, before a worker is back.
    expect((await sweepAutomations(api.database.orm.em.fork(), triggerControlOf(api.services), '')).failed).toEqual([]);
    const convertedAt = new Map<string, Date>();
    for (const id of ids) {
      const schedule = await schedules().getHandle(id).describe();
      expect(schedule.action).toMatchObject({ workflowType: 'scheduledRun', args: [id] });
      expect(schedule.policies.overlap).toBe(ScheduleOverlapPolicy.ALLOW_ALL);
      convertedAt.set(id, schedule.info.lastUpdatedAt!);
    }

    const restartedAt = new Date();
    await startWorker();
    // Every fire of the former kind started before the conversion completes after it, on the new worker.
    const handles = pending.map((fire) => api.services.temporal.client.workflow.getHandle(fire.workflow.workflowId));
    const closed = await until(
      () => Promise.all(handles.map((handle) => handle.describe())),
      (described) => described.every((fire) => fire.status.name === 'COMPLETED'),
      90_000,
    );
    for (const fire of closed) {
      const automationId = fireId(fire.workflowId).prefix;
      expect(fire.type).toBe('scheduledFire');
      expect(fire.startTime.getTime()).toBeLessThan(convertedAt.get(automationId)!.getTime());
      expect(fire.closeTime!.getTime()).toBeGreaterThan(convertedAt.get(automationId)!.getTime());
    }
    // The converted schedules fire on the new worker.
    const firedAfter = (all: Run[]) =>
      perAutomation(
        ids,
        all,
        (run) => run.ownWorkflow && run.status === 'success' && new Date(run.scheduledAt) > restartedAt,
      );
    expect(firedAfter(await until(runs, firedAfter, 90_000))).toBe(true);

    const stoppedAt = new Date();
    for (const id of ids)
      expect((await client.call('PATCH', `/automations/${id}`, { status: 'inactive' })).status).toBe(200);
    // Every fire the schedules took listed and closed, every run ended.
    const settled = await until(
      async () => ({ taken: await actionsTaken(ids), fires: await firesOf(ids), runs: await runs() }),
      ({ taken, fires, runs: all }) =>
        fires.length === taken &&
        fires.every((fire) => fire.info.status.name !== 'RUNNING') &&
        all.every((run) => run.status !== 'running'),
      90_000,
    );
    const { fires, runs: recorded } = settled;
    expect(fires.length).toBe(settled.taken);
    const failed = recorded.filter((run) => run.status !== 'success');
    expect(failed.map((run) => [run.id, run.status, run.error])).toEqual([]);

    for (const id of ids) {
      const times = recorded.filter((run) => run.automationId === id).map((run) => run.scheduledAt);
      // Recorded once: no scheduled time has two runs.
      expect(times.length, id).toBe(new Set(times).size);
      // None lost: every time the schedule fired before the automation was stopped has its run; and
      // every run is a time it fired (a fire after the stop records nothing, its automation inactive).
      const fired = new Set(fires.filter((fire) => fire.automationId === id).map((fire) => fire.scheduledAt));
      const firedBeforeStop = [...fired].filter((time) => new Date(time) < stoppedAt);
      expect(
        firedBeforeStop.filter((time) => !times.includes(time)),
        id,
      ).toEqual([]);
      expect(
        times.filter((time) => !fired.has(time)),
        id,
      ).toEqual([]);
    }
    // What was in flight at the kill ended once, each as recorded before it.
    for (const run of runningAtKill) expect(recorded.find(({ id }) => id === run.id)?.status, run.id).toBe('success');
    for (const fire of closed) {
      const { prefix: automationId, scheduledAt } = fireId(fire.workflowId);
      const its = recorded.filter((run) => run.automationId === automationId && run.scheduledAt === scheduledAt);
      expect(
        its.map((run) => run.ownWorkflow),
        fire.workflowId,
      ).toEqual([false]);
    }

    const former = recorded.filter((run) => !run.ownWorkflow).length;
    console.log(
      `[fault-schedule-conversion] ${fires.length} fires, ${recorded.length} runs (${former} by scheduledFire, ` +
        `${recorded.length - former} by scheduledRun); ${runningAtKill.length} in flight at the kill, ` +
        `${closed.length} scheduledFire started before the conversion completed after it`,
    );
  }, 300_000);
});
