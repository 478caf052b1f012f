import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import {
  beginAndRun,
  beginRun,
  failRun,
  finishFunctionRun,
  type RunPlan,
} from '../../src/automations/runs/run-steps.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { recordRuns, recordScheduledRun } from '../../src/automations/runs/fires.ts';
import { Execution } from '../../src/functions/execution.entity.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { storeEnd } from '../../src/functions/execution.sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey } from '../support/keys.ts';
import { until } from '../support/polling.ts';

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

const newFunction = async (name: string) => (await storeFunction(db.orm, accountId, name)).id;

/** A function automation with one run fired manually and not yet begun. */
async function firedRun(functionId: string, notify: Automation['notify'] = []) {
  const em = fork();
  const automation = em.create(Automation, {
    account: accountId,
    name: `runs of ${functionId}`,
    status: 'active',
    triggerType: 'schedule',
    trigger: { type: 'schedule', cron: '@yearly' },
    action: { type: 'function', functionId, parameters: { x: 1, trigger: 'overwritten' } },
    functionId,
    watchFromBlock: null,
    errorDetails: null,
    notify,
    gasBelow: [],
    network: 'default',
  });
  await em.flush();
  const [run] = await recordRuns(em, [{ automation, fireKey: 'manual:1', payload: { type: 'manual' } }]);
  return { automationId: automation.id, runId: run!.runId };
}

const waitingOnLocks = async () => {
  const [row] = await fork().execute<{ waiting: string }[]>(
    `select count(*) as "waiting" from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
  );
  return Number(row!.waiting);
};

const failOnWarn = (step: string, error: unknown) => {
  throw new Error(`${step} failed: ${String(error)}`);
};

/** An entity manager whose every statement fails, as on a lost connection. */
const brokenEm = () => {
  const em = fork();
  em.execute = () => Promise.reject(new Error('connection lost'));
  return em;
};

const runRow = (runId: string) => fork().findOneOrFail(AutomationRun, { id: runId });

describe("a function action's run steps", () => {
  it('records one execution with the parameters and what fired it, however often (and however concurrently) it begins', async () => {
    const functionId = await newFunction('begun');
    const { automationId, runId } = await firedRun(functionId);

    // Three attempts read the run before any of them writes: its row is locked until all three wait.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let plans: RunPlan[];
    try {
      await locker.query('begin');
      await locker.query(`select 1 from "automation_runs" where "id" = $1 for update`, [runId]);
      const attempts = Promise.all([beginRun(fork(), runId), beginRun(fork(), runId), beginRun(fork(), runId)]);
      expect(await until(waitingOnLocks, (waiting) => waiting >= 3, 10_000, 20)).toBe(3);
      await locker.query('commit');
      plans = await attempts;
    } finally {
      await locker.end();
    }
    const again = await beginRun(fork(), runId);

    const executions = await fork().find(Execution, { function: functionId });
    expect(executions).toHaveLength(1);
    const [execution] = executions;
    for (const plan of [...plans, again]) {
      expect(plan).toEqual({
        kind: 'function',
        executionId: execution!.id,
        labels: [{ key: expect.objectContaining({ name: 'NeoflowFunctionId' }), value: functionId }],
        sends: false,
        notify: false,
      });
    }
    expect(execution).toMatchObject({
      status: 'running',
      params: { x: 1, trigger: { type: 'manual' } },
      trigger: { type: 'automation', automationId },
      account: { id: accountId },
      error: null,
      logs: [],
      secretsRead: [],
    });
    expect(await runRow(runId)).toMatchObject({ dispatched: true, executionId: execution!.id, status: 'running' });
  });

  it('ends the run as its execution ended: a success, or a failure with the execution`s error', async () => {
    for (const ending of ['completed', 'failed'] as const) {
      const { runId } = await firedRun(await newFunction(`ends-${ending}`));
      const plan = await beginRun(fork(), runId);
      if (plan.kind !== 'function') throw new Error(`planned ${plan.kind}`);
      const error = ending === 'failed' ? { name: 'TypeError', message: 'boom', stack: 'at code' } : null;
      const end = { status: ending, secretsRead: [], logs: [], error, completedAt: new Date(), duration: 3 };
      expect(await storeEnd(fork(), plan.executionId, end)).toBe(true);

      const status = ending === 'completed' ? 'success' : 'failure';
      const outcome = { status: ending, durationMs: 3, errorName: error?.name ?? null };
      expect(await finishFunctionRun(fork(), runId, outcome)).toBe(status);
      expect(await finishFunctionRun(fork(), runId, outcome)).toBe(status);
      const run = await runRow(runId);
      expect(run).toMatchObject({ status, error });
      expect(run.completedAt).toBeInstanceOf(Date);
      expect(run.duration).toBeGreaterThanOrEqual(0);
    }
  });

  it("ends the run as its workflow's outcome says, without reading the execution's status back", async () => {
    const { runId } = await firedRun(await newFunction('outcome-forward'));
    await beginRun(fork(), runId);
    // The execution's row still says running: only the outcome its workflow returned tells the end.
    const outcome = { status: 'completed' as const, durationMs: 3, errorName: null };
    expect(await finishFunctionRun(fork(), runId, outcome)).toBe('success');
    expect(await runRow(runId)).toMatchObject({ status: 'success', error: null });
  });

  it('fails the run of a function deleted before it began, and of an execution deleted with its function', async () => {
    const deletedFirst = await newFunction('deleted-first');
    const before = await firedRun(deletedFirst, [
      { on: ['failure'], channel: { type: 'slack', url: 'https://hooks.slack.test/x' } },
    ]);
    await fork().nativeDelete(FunctionDef, { id: deletedFirst });
    expect(await beginRun(fork(), before.runId)).toEqual({ kind: 'ended', status: 'failure', notify: true });
    expect(await runRow(before.runId)).toMatchObject({
      status: 'failure',
      dispatched: true,
      error: { name: 'FunctionNotFound', message: `The function ${deletedFirst} no longer exists.` },
    });

    const deletedDuring = await newFunction('deleted-during');
    const during = await firedRun(deletedDuring);
    await beginRun(fork(), during.runId);
    await fork().nativeDelete(FunctionDef, { id: deletedDuring });
    const deleted = { status: 'deleted' as const, durationMs: null, errorName: null };
    expect(await finishFunctionRun(fork(), during.runId, deleted)).toBe('failure');
    expect(await runRow(during.runId)).toMatchObject({
      status: 'failure',
      error: { name: 'ExecutionLostError', message: 'The execution was deleted with its function.' },
    });
  });

  it('records no execution for a run that ended while its action was beginning, and says how it ended', async () => {
    const functionId = await newFunction('ended-meanwhile');
    const { runId } = await firedRun(functionId);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let plan: RunPlan;
    try {
      await locker.query('begin');
      await locker.query(`select 1 from "automation_runs" where "id" = $1 for update`, [runId]);
      const attempt = beginRun(fork(), runId);
      expect(await until(waitingOnLocks, (waiting) => waiting >= 1, 10_000, 20)).toBe(1);
      await locker.query(`update "automation_runs" set "status" = 'failure' where "id" = $1`, [runId]);
      await locker.query('commit');
      plan = await attempt;
    } finally {
      await locker.end();
    }
    expect(plan).toEqual({ kind: 'ended', status: 'failure', notify: false });
    expect(await fork().count(Execution, { function: functionId })).toBe(0);
    expect(await runRow(runId)).toMatchObject({ status: 'failure', dispatched: true, executionId: null });
  });

  it('begins a function run, makes its attempt and ends it in one step, as its attempt ended', async () => {
    const { runId } = await firedRun(await newFunction('one-step'));
    const ran: string[] = [];
    const attempt = { status: 'completed' as const, durationMs: 3, errorName: null };
    const step = await beginAndRun(fork, runId, async (executionId) => (ran.push(executionId), attempt), failOnWarn);
    expect(step).toMatchObject({ kind: 'function', attempt, status: 'success' });
    expect(ran).toEqual([step.kind === 'function' ? step.executionId : '']);
    expect(await runRow(runId)).toMatchObject({ status: 'success', dispatched: true, executionId: ran[0] });
  });

  it('leaves to its workflow a deferred attempt, an attempt that failed, and an end it could not store', async () => {
    const deferred = await firedRun(await newFunction('one-step-deferred'));
    const waiting = await beginAndRun(fork, deferred.runId, async () => ({ status: 'deferred' }), failOnWarn);
    expect(waiting).toMatchObject({ kind: 'function', attempt: { status: 'deferred' } });
    expect(waiting).not.toHaveProperty('status');

    const lost = await firedRun(await newFunction('one-step-lost'));
    const warned: string[] = [];
    const warn = (step: string) => void warned.push(step);
    const unrun = await beginAndRun(fork, lost.runId, () => Promise.reject(new Error('connection lost')), warn);
    expect(unrun).toMatchObject({ kind: 'function', executionId: expect.stringMatching(/^exec_/) });
    expect(unrun).not.toHaveProperty('attempt');

    const unstored = await firedRun(await newFunction('one-step-unstored'));
    const attempt = { status: 'completed' as const, durationMs: 3, errorName: null };
    // The run's end is stored on a connection that fails: the attempt is answered, the end left.
    let forks = 0;
    const failingSecond = () => (++forks === 2 ? brokenEm() : fork());
    const ended = await beginAndRun(failingSecond, unstored.runId, async () => attempt, warn);
    expect(ended).toMatchObject({ kind: 'function', attempt });
    expect(ended).not.toHaveProperty('status');
    expect(warned).toEqual(['runExecution', 'finishFunctionRun']);
    for (const { runId } of [deferred, lost, unstored])
      expect(await runRow(runId)).toMatchObject({ status: 'running' });
  });

  it("records a schedule's fire once, labelled with its function, while its automation was active at the fire's time", async () => {
    const functionId = await newFunction('scheduled');
    const { automationId } = await firedRun(functionId);
    const at = new Date(Date.now() - 60_000).toISOString();
    const fired = await recordScheduledRun(fork(), automationId, at);
    const labels = Object.fromEntries(fired!.labels.map(({ key, value }) => [key.name, value]));
    expect(labels).toEqual({
      NeoflowAccountId: accountId,
      NeoflowAutomationId: automationId,
      NeoflowFunctionId: functionId,
      NeoflowTrigger: 'schedule',
    });
    // Recorded again (a retried local activity): the same run, labelled the same.
    expect(await recordScheduledRun(fork(), automationId, at)).toEqual(fired);
    expect(await runRow(fired!.runId)).toMatchObject({
      status: 'running',
      trigger: { type: 'schedule', scheduledAt: at },
    });

    // Made inactive: a fire scheduled before the change is recorded, a later one is not.
    await fork().execute(`update "automations" set "status" = 'inactive', "updated_at" = now() where "id" = ?`, [
      automationId,
    ]);
    const before = new Date(Date.now() - 30_000).toISOString();
    expect(await recordScheduledRun(fork(), automationId, before)).toMatchObject({ runId: expect.any(String) });
    expect(await recordScheduledRun(fork(), automationId, new Date(Date.now() + 1_000).toISOString())).toBeNull();
    expect(await recordScheduledRun(fork(), 'auto_gone', at)).toBeNull();
  });

  it("records a schedule's fire in its run's first step once, however repeated, and none too late or for an inactive automation", async () => {
    const functionId = await newFunction('fired-by-schedule');
    const { automationId } = await firedRun(functionId);
    const scheduledAt = new Date(Date.now() - 5_000).toISOString();
    const fire = { automationId, scheduledAt, lateAfterMs: 60_000 };
    const runId = `run_fire-${scheduledAt}`;
    // Begun twice at once, then again once the catchup window has passed (a retried step): one run.
    const [first, second] = await Promise.all([beginRun(fork(), runId, fire), beginRun(fork(), runId, fire)]);
    const late = await beginRun(fork(), runId, { ...fire, lateAfterMs: 0 });
    expect(first).toMatchObject({ kind: 'function', executionId: expect.any(String) });
    for (const plan of [second, late]) expect(plan).toEqual(first);
    const runs = await fork().find(AutomationRun, { automation: automationId, fireKey: `schedule:${scheduledAt}` });
    expect(runs.map(({ id, executionId, trigger }) => ({ id, executionId, trigger }))).toEqual([
      {
        id: runId,
        executionId: (first as { executionId: string }).executionId,
        trigger: { type: 'schedule', scheduledAt },
      },
    ]);

    // The same time fired under another workflow (a fire of the code before): recorded once, by the first.
    expect(await beginRun(fork(), `run_other-${scheduledAt}`, fire)).toEqual({
      kind: 'unrecorded',
      late: false,
      notify: false,
    });
    const tooLate = { ...fire, scheduledAt: new Date(Date.now() - 61_000).toISOString() };
    expect(await beginRun(fork(), 'run_too-late', tooLate)).toEqual({ kind: 'unrecorded', late: true, notify: false });
    await fork().execute(`update "automations" set "status" = 'inactive', "updated_at" = now() where "id" = ?`, [
      automationId,
    ]);
    const afterPause = { ...fire, scheduledAt: new Date(Date.now() + 1_000).toISOString() };
    expect(await beginRun(fork(), 'run_paused', afterPause)).toEqual({
      kind: 'unrecorded',
      late: false,
      notify: false,
    });
    expect(await fork().count(AutomationRun, { automation: automationId })).toBe(2);
  });

  it("keeps a run's first end, and records no execution for a run that already ended", async () => {
    const functionId = await newFunction('ended-once');
    const { runId } = await firedRun(functionId);
    await failRun(fork(), runId, 'could not run');
    await failRun(fork(), runId, 'a later word');
    expect(await runRow(runId)).toMatchObject({
      status: 'failure',
      error: { name: 'ActionError', message: 'could not run' },
    });
    expect(await beginRun(fork(), runId)).toEqual({ kind: 'ended', status: 'failure', notify: false });
    expect(await fork().count(Execution, { function: functionId })).toBe(0);
  });
});
