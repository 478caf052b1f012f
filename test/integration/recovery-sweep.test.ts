import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dataConverter } from '../../src/temporal/codec.ts';
import { testPayloadKey } from '../support/temporal.ts';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { recordRuns } from '../../src/automations/runs/fires.ts';
import { Execution } from '../../src/functions/execution.entity.ts';
import { newExecution } from '../../src/functions/execution-record.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { ensureRecoveryLoop, recoveryWorkflowId } from '../../src/recovery/recovery-loop.ts';
import { ScheduleNotFoundError } from '@temporalio/client';
import { startTestApi, type TestApi } from '../support/api.ts';
import { testApi, type ApiCall } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';
import { Notification } from '../../src/automations/notifications/notification.entity.ts';
import { stopWithError } from '../../src/automations/notifications/error-event.ts';
import { until } from '../support/polling.ts';
import { newId } from '../../src/ids.ts';
import { gasHash } from '../support/automations.ts';
import { auditReceipt } from '../../src/functions/receipt-audit.ts';
import { receiptKeysOf } from '../../src/receipts/receipt-keys.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

let api: TestApi;
let worker: RunningWorker;
let call: ApiCall;
let taskQueue: string;

beforeAll(async () => {
  taskQueue = `recovery-${randomBytes(4).toString('hex')}`;
  // The sweep every second, and anything recorded over a second ago counts as not started.
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '1' });
  call = testApi(api.url, (await issueKey(api.database.orm)).key);
  worker = await startTestWorker(api.database.url, taskQueue, { NEOFLOW_RECOVERY_SECONDS: '1' });
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

describe('the recovery sweep', () => {
  it('starts the workflow of an execution whose process died between its row and its start, once', async () => {
    const created = await call('POST', '/functions', {
      name: 'orphan',
      runtime: 'node18',
      code: 'module.exports = async (context) => context.params.n * 2;',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // What an API that died right after writing the row leaves: the row, and no workflow.
    const em = api.database.orm.em.fork();
    const fn = await em.findOneOrFail(FunctionDef, { id: created.body.data.id as string });
    const orphan = newExecution(em, fn, fn.account.id, { n: 21 }, { type: 'api' });
    await em.insert(orphan);

    // Every API start asks for the loop; the ones after the first change nothing.
    await ensureRecoveryLoop(api.services.temporal.client, taskQueue, 1000);
    // A workflow waiting on timers, not a Temporal schedule: it repairs schedules that stop.
    const loop = await api.services.temporal.client.workflow.getHandle(recoveryWorkflowId(taskQueue)).describe();
    expect([loop.type, loop.status.name]).toEqual(['recoveryLoop', 'RUNNING']);
    await expect(
      api.services.temporal.client.schedule.getHandle(recoveryWorkflowId(taskQueue)).describe(),
    ).rejects.toThrow(ScheduleNotFoundError);

    const deadline = Date.now() + 30_000;
    let status = orphan.status;
    while (status === 'running' && Date.now() < deadline) {
      await sleep(200);
      status = (await api.database.orm.em.fork().findOneOrFail(Execution, { id: orphan.id })).status;
    }
    expect(status).toBe('completed');
    const details = await call('GET', `/functions/${fn.id}/executions/${orphan.id}`);
    expect(details.body.data).toMatchObject({ status: 'completed', result: 42 });
    const workflow = await api.services.temporal.client.workflow.getHandle(orphan.id).describe();
    expect(workflow.type).toBe('executeFunction');
    expect(await api.services.temporal.client.workflow.getHandle(orphan.id).result()).toEqual({
      status: 'completed',
      durationMs: expect.any(Number),
      errorName: null,
    });
  });

  it('starts the action of an automation run whose process died between its row and its start', async () => {
    const fn = await call('POST', '/functions', {
      name: 'orphan-action',
      runtime: 'node18',
      code: 'module.exports = async (context) => context.params.trigger.type;',
    });
    const created = await call('POST', '/automations', {
      name: 'orphan run',
      trigger: { type: 'schedule', cron: '0 0 1 1 *' },
      action: { type: 'function', functionId: fn.body.data.id as string },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const em = api.database.orm.em.fork();
    const automation = await em.findOneOrFail(Automation, { id: (created.body as { id: string }).id });
    const [orphan] = await recordRuns(em, [{ automation, fireKey: 'manual:orphan', payload: { type: 'manual' } }]);

    const deadline = Date.now() + 30_000;
    let run = await em.fork().findOneOrFail(AutomationRun, { id: orphan!.runId });
    while (run.status === 'running' && Date.now() < deadline) {
      await sleep(200);
      run = await em.fork().findOneOrFail(AutomationRun, { id: orphan!.runId });
    }
    expect(run.status).toBe('success');
    expect(run.dispatched).toBe(true);
  });

  it('converges replay rows: one whose workflow never started runs to its end, one whose workflow was terminated fails', async () => {
    const fn = await call('POST', '/functions', {
      name: 'replayed-action',
      runtime: 'node18',
      code: 'module.exports = async () => 1;',
    });
    const watcher = async () => {
      const created = await call('POST', '/automations', {
        name: 'replayed',
        status: 'inactive',
        trigger: { type: 'blockchain', scriptHash: gasHash, event: 'Transfer' },
        action: { type: 'function', functionId: fn.body.data.id as string },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return (created.body as { id: string }).id;
    };
    const sql = api.database.orm.em.fork().getConnection();
    // What an API that died right after writing the row leaves: the row, and no workflow.
    const insertReplay = async (automationId: string) => {
      const id = newId('rpl');
      await sql.execute(
        `insert into "automation_replays" ("id", "automation_id", "account_id", "from_block", "to_block", "next_block", "dry_run")
          select ?, "id", "account_id", 0, 2, 0, true from "automations" where "id" = ?`,
        [id, automationId],
      );
      return id;
    };
    const orphan = await insertReplay(await watcher());
    const terminated = await insertReplay(await watcher());
    const temporal = api.services.temporal.client;
    // Started where no worker polls, then terminated: closed while its row still says running.
    await temporal.workflow.start('replayBlocks', {
      workflowId: terminated,
      taskQueue: `${taskQueue}-none`,
      args: [terminated],
    });
    await temporal.workflow.getHandle(terminated).terminate('an operator ended it');
    await ensureRecoveryLoop(temporal, taskQueue, 1000);

    const statusOf = async (id: string) => {
      const [row] = await sql.execute<{ status: string; next_block: number; error: { message: string } | null }[]>(
        `select "status", "next_block", "error" from "automation_replays" where "id" = ?`,
        [id],
      );
      return row!;
    };
    const ended = await until(
      async () => [await statusOf(orphan), await statusOf(terminated)],
      (rows) => rows.every((row) => row.status !== 'running'),
    );
    expect(ended[0]).toMatchObject({ status: 'completed', next_block: 3, error: null });
    expect(ended[1]).toMatchObject({
      status: 'failed',
      error: { message: 'The replay could not go on: its workflow was terminated.' },
    });
    expect((await temporal.workflow.getHandle(orphan).describe()).type).toBe('replayBlocks');
  });

  it('delivers the error notifications of an automation a trigger moved to error, once', async () => {
    const receiver = await startWebhookReceiver();
    try {
      expect((await call('POST', '/secrets', { name: 'HOOK', value: 'sweep-secret' })).status).toBe(201);
      const channel = { type: 'webhook', url: receiver.url('/error'), signingSecret: 'HOOK' };
      const created = await call('POST', '/automations', {
        name: 'watch what is never deployed',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: { type: 'contract', scriptHash: `0x${'ab'.repeat(20)}`, operation: 'go', args: [] },
        notify: [{ on: ['error'], channel }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const automationId = (created.body as unknown as { id: string }).id;
      // What a price poller's or block follower's activity does: it records, and starts nothing.
      const details = { reason: 'trigger_unavailable' as const, message: 'The price could not be read.' };
      const [notificationId] = await stopWithError(api.database.orm.em.fork(), { id: automationId }, details);

      const [told, ...more] = await until(
        async () => receiver.at('/error'),
        (requests) => requests.length > 0,
      );
      expect(more).toEqual([]);
      expect(told!.headers['neoflow-delivery']).toBe(notificationId);
      expect(JSON.parse(told!.body)).toMatchObject({ event: 'error', reason: 'The price could not be read.' });
      const row = await until(
        () => api.database.orm.em.fork().findOneOrFail(Notification, { id: notificationId! }),
        (notification) => notification.status !== 'pending',
      );
      expect(row).toMatchObject({ status: 'delivered', attempts: 1, dispatched: true });
    } finally {
      await receiver.close();
    }
  });

  it('moves at a pass the active automations of a network no longer configured to error (network_unavailable), not only at the API start, and leaves them in error once it is configured again', async () => {
    const automation = async (status: 'active' | 'inactive') => {
      const created = await call('POST', '/automations', {
        name: `on a removed network ${randomBytes(3).toString('hex')}`,
        status,
        trigger: { type: 'schedule', cron: '@yearly' },
        action: { type: 'contract', scriptHash: `0x${'cd'.repeat(20)}`, operation: 'go', args: [] },
        notify: [{ on: ['error'], channel: { type: 'slack', url: 'http://127.0.0.1:9/told' } }],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body as unknown as { id: string; network: string };
    };
    const [gone, goneInactive, later] = await Promise.all([
      automation('active'),
      automation('inactive'),
      automation('active'),
    ]);
    const configured = gone.network;
    const em = () => api.database.orm.em.fork();
    // As when the worker's configuration no longer names the network these rows were made on: the
    // API started before, so only the reconciler's pass can see it.
    await em().nativeUpdate(Automation, { id: { $in: [gone.id, goneInactive.id] } }, { network: 'gone' });

    const stopped = await until(
      () => em().findOneOrFail(Automation, { id: gone.id }),
      (row) => row.status === 'error',
    );
    expect(stopped.errorDetails).toMatchObject({ reason: 'network_unavailable' });
    expect(stopped.errorDetails?.message).toContain('"gone"');
    expect(await em().count(Notification, { automation: gone.id, event: 'error' })).toBe(1);
    const schedule = await until(
      () => api.services.temporal.client.schedule.getHandle(gone.id).describe(),
      (described) => described.state.paused,
    );
    expect(schedule.state.paused).toBe(true);
    expect((await em().findOneOrFail(Automation, { id: goneInactive.id })).status).toBe('inactive');

    // The network listed again: a later pass (it stops `later`, moved after) leaves `gone` in error,
    // told once, until it is activated, as after the API's start.
    await em().nativeUpdate(Automation, { id: gone.id }, { network: configured });
    await em().nativeUpdate(Automation, { id: later.id }, { network: 'gone' });
    await until(
      () => em().findOneOrFail(Automation, { id: later.id }),
      (row) => row.status === 'error',
    );
    expect((await em().findOneOrFail(Automation, { id: gone.id })).status).toBe('error');
    expect(await em().count(Notification, { automation: gone.id, event: 'error' })).toBe(1);
    expect((await call('PATCH', `/automations/${gone.id}`, { status: 'active' })).status).toBe(200);
  });

  describe('rows whose workflow closed, or that wait behind many that cannot be healed', () => {
    // Workflows started on a queue no worker polls: they run (or close) without touching a row.
    const nobodyPolls = `nobody-${randomBytes(4).toString('hex')}`;
    const parked: string[] = [];
    let fn: FunctionDef;
    beforeAll(async () => {
      const created = await call('POST', '/functions', {
        name: 'swept',
        runtime: 'node18',
        code: 'module.exports = async (context) => context.params.n + 1;',
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      fn = await api.database.orm.em.fork().findOneOrFail(FunctionDef, { id: created.body.data.id as string });
    });
    afterAll(async () => {
      const { client } = api.services.temporal;
      await Promise.allSettled(parked.map((id) => client.workflow.getHandle(id).terminate('test over')));
    });

    /** A workflow under `id` that never runs, on the queue nobody polls. */
    const park = async (workflowType: string, id: string) => {
      await api.services.temporal.client.workflow.start(workflowType, {
        workflowId: id,
        taskQueue: nobodyPolls,
        args: [id],
      });
      parked.push(id);
    };
    /** A workflow under `id` that failed with `message`, run by a worker of its own queue. */
    const failWorkflow = async (id: string, message: string) => {
      const queue = `failing-${randomBytes(4).toString('hex')}`;
      const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
      try {
        const failing = await Worker.create({
          connection,
          namespace: 'default',
          taskQueue: queue,
          dataConverter: dataConverter(testPayloadKey),
          workflowsPath: fileURLToPath(new URL('../support/failing-workflows.ts', import.meta.url)),
        });
        const handle = await api.services.temporal.client.workflow.start('failingWorkflow', {
          workflowId: id,
          taskQueue: queue,
          args: [message],
        });
        await failing.runUntil(handle.result().catch(() => undefined));
      } finally {
        await connection.close();
      }
    };
    /** An execution row that started `agoMs` ago, as an invoke records it. */
    const storeExecution = async (agoMs: number, n = 1) => {
      const em = api.database.orm.em.fork();
      const execution = newExecution(em, fn, fn.account.id, { n }, { type: 'api' });
      execution.startedAt = new Date(Date.now() - agoMs);
      await em.insert(execution);
      return execution.id;
    };
    const executionOf = (id: string) => api.database.orm.em.fork().findOneOrFail(Execution, { id });
    /**
     * The execution the sweep ended has its receipt, signed in the statement that ended it: failed,
     * its error as outcome, and every hash the row's as it stands (`neoflow receipts verify`'s check).
     */
    const expectSignedFailure = async (executionId: string) => {
      const answer = await call('GET', `/functions/${fn.id}/executions/${executionId}/receipt`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data).toMatchObject({ status: 'failed', claim: 'signed', hostCalls: [] });
      const { listed } = receiptKeysOf(api.services.config);
      const em = api.database.orm.em.fork();
      expect(await auditReceipt(em, api.services.masterKeys, executionId, listed)).toMatchObject({
        holds: true,
        problems: [],
      });
    };

    it('ends a running execution whose workflow closed (terminated) as ExecutionLostError, signed', async () => {
      const em = api.database.orm.em.fork();
      const execution = newExecution(em, fn, fn.account.id, { n: 1 }, { type: 'api' });
      // The workflow closes first, then the row is stored: what an operator's terminate, or a
      // failExecution that ran out of attempts while PostgreSQL was down, leaves.
      await park('executeFunction', execution.id);
      await api.services.temporal.client.workflow.getHandle(execution.id).terminate('operator');
      execution.startedAt = new Date(Date.now() - 10_000);
      await em.insert(execution);

      const ended = await until(
        () => executionOf(execution.id),
        (row) => row.status !== 'running',
      );
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatchObject({
        name: 'ExecutionLostError',
        message: 'The execution could not be run: its workflow was terminated.',
      });
      expect(ended.completedAt).not.toBeNull();
      await expectSignedFailure(execution.id);
    });

    it('ends a running automation run whose workflow closed, and its execution, as ExecutionLostError, signed', async () => {
      const created = await call('POST', '/automations', {
        name: 'closed under the run',
        status: 'inactive',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: { type: 'function', functionId: fn.id },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const automationId = (created.body as unknown as { id: string }).id;
      const runId = newId('run');
      await park('runAction', runId);
      await api.services.temporal.client.workflow.getHandle(runId).terminate('operator');
      const em = api.database.orm.em.fork();
      const execution = newExecution(em, fn, fn.account.id, {}, { type: 'automation', automationId });
      execution.startedAt = new Date(Date.now() - 10_000);
      await em.insert(execution);
      await em.getConnection().execute(
        `insert into "automation_runs" ("id", "automation_id", "account_id", "network", "fire_key", "status", "trigger",
          "dispatched", "execution_id", "started_at")
        values (?, ?, ?, 'default', 'manual:closed', 'running', '{"type":"manual"}', true, ?, now() - interval '10 seconds')`,
        [runId, automationId, fn.account.id, execution.id],
      );

      const run = await until(
        () => api.database.orm.em.fork().findOneOrFail(AutomationRun, { id: runId }),
        (row) => row.status !== 'running',
      );
      expect(run.status).toBe('failure');
      expect(run.error).toMatchObject({ name: 'ExecutionLostError' });
      const ended = await until(
        () => executionOf(execution.id),
        (row) => row.status !== 'running',
      );
      expect(ended).toMatchObject({ status: 'failed', error: { name: 'ExecutionLostError' } });
      await expectSignedFailure(execution.id);
    });

    it('ends a run whose workflow failed with a fixed message (the cause logged only) and tells its failure', async () => {
      const receiver = await startWebhookReceiver();
      try {
        const secret = await call('POST', '/secrets', { name: 'LOSTHOOK', value: 'lost-secret' });
        expect(secret.status).toBe(201);
        const created = await call('POST', '/automations', {
          name: 'failed under the run',
          status: 'inactive',
          trigger: { type: 'schedule', cron: '@yearly' },
          action: { type: 'function', functionId: fn.id },
          notify: [
            { on: ['failure'], channel: { type: 'webhook', url: receiver.url('/failure'), signingSecret: 'LOSTHOOK' } },
          ],
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const automationId = (created.body as unknown as { id: string }).id;
        // A run's workflow that failed with internal text: what a worker's lost database raises.
        const runId = newId('run');
        const internal = 'connect ECONNREFUSED 10.9.8.7:5432';
        await failWorkflow(runId, internal);
        await api.database.orm.em.getConnection().execute(
          `insert into "automation_runs" ("id", "automation_id", "account_id", "network", "fire_key", "status", "trigger",
            "dispatched", "started_at")
          values (?, ?, ?, 'default', 'manual:failed', 'running', '{"type":"manual"}', true, now() - interval '10 seconds')`,
          [runId, automationId, fn.account.id],
        );

        const run = await until(
          () => api.database.orm.em.fork().findOneOrFail(AutomationRun, { id: runId }),
          (row) => row.status !== 'running',
        );
        expect(run).toMatchObject({
          status: 'failure',
          error: { name: 'ExecutionLostError', message: 'The run could not end: its workflow failed.' },
        });
        const [told] = await until(
          async () => receiver.at('/failure'),
          (requests) => requests.length > 0,
          60_000,
        );
        expect(JSON.parse(told!.body)).toMatchObject({ event: 'failure', run: { id: runId, status: 'failure' } });
        expect(told!.body).not.toContain('10.9.8.7');
      } finally {
        await receiver.close();
      }
    });

    it('fails a pending notification whose delivery workflow closed before its first attempt', async () => {
      const created = await call('POST', '/automations', {
        name: 'told of nothing',
        status: 'inactive',
        trigger: { type: 'schedule', cron: '@yearly' },
        action: { type: 'function', functionId: fn.id },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const notificationId = newId('ntf');
      await park('deliverNotification', notificationId);
      await api.services.temporal.client.workflow.getHandle(notificationId).terminate('operator');
      await api.database.orm.em
        .fork()
        .getConnection()
        .execute(
          `insert into "notifications" ("id", "automation_id", "account_id", "rule", "event", "event_key", "channel",
          "message", "status", "dispatched", "created_at")
        values (?, ?, ?, 0, 'error', 'error:closed', '{}', '{}', 'pending', false, now() - interval '10 seconds')`,
          [notificationId, (created.body as unknown as { id: string }).id, fn.account.id],
        );
      const row = await until(
        () => api.database.orm.em.fork().findOneOrFail(Notification, { id: notificationId }),
        (notification) => notification.status !== 'pending',
      );
      expect(row).toMatchObject({
        status: 'failed',
        lastError: 'The delivery could not run: its workflow was terminated.',
      });
    });

    it('starts an orphan queued behind more running rows than a page holds, whose workflows run on', async () => {
      // 120 older rows whose workflows are running (nobody polls their queue): none can be
      // healed, and each sweep still reaches the orphan behind them.
      for (let index = 0; index < 120; index++) await park('executeFunction', await storeExecution(120_000 - index));
      const orphan = await storeExecution(60_000, 41);

      const ended = await until(
        () => executionOf(orphan),
        (row) => row.status !== 'running',
        60_000,
      );
      expect(ended.status).toBe('completed');
      const details = await call('GET', `/functions/${fn.id}/executions/${orphan}`);
      expect(details.body.data).toMatchObject({ status: 'completed', result: 42 });
    }, 90_000);
  });

  describe('automations whose triggers Temporal lost or kept behind the service’s back', () => {
    const client = () => api.services.temporal.client;
    const createSchedule = async (cron: string) => {
      const fn = await call('POST', '/functions', {
        name: `every-${randomBytes(3).toString('hex')}`,
        runtime: 'node18',
        code: 'module.exports = async () => 1;',
      });
      const created = await call('POST', '/automations', {
        name: 'converged',
        trigger: { type: 'schedule', cron },
        action: { type: 'function', functionId: fn.body.data.id as string },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return (created.body as unknown as { id: string }).id;
    };
    const runsSince = async (automationId: string, since: number) =>
      (await api.database.orm.em.fork().find(AutomationRun, { automation: automationId })).filter(
        (run) => run.startedAt.getTime() > since,
      );

    it('fires again after one sweep an automation whose schedule was deleted', async () => {
      const id = await createSchedule('* * * * * *');
      await client().schedule.getHandle(id).delete();
      const deletedAt = Date.now();
      const runs = await until(
        () => runsSince(id, deletedAt),
        (fired) => fired.length > 0,
      );
      expect(runs.length).toBeGreaterThan(0);
      const described = await client().schedule.getHandle(id).describe();
      expect(described.state.paused).toBe(false);
      await call('PATCH', `/automations/${id}`, { status: 'inactive' });
    });

    it('unpauses the schedule of an active automation paused behind its back, and pauses an inactive one', async () => {
      const id = await createSchedule('@yearly');
      await client().schedule.getHandle(id).pause('an operator');
      await until(
        () => client().schedule.getHandle(id).describe(),
        (described) => !described.state.paused,
      );
      await api.database.orm.em.fork().nativeUpdate(Automation, { id }, { status: 'inactive' });
      const paused = await until(
        () => client().schedule.getHandle(id).describe(),
        (described) => described.state.paused,
      );
      expect(paused.state.note).toBe('automation inactive: cron "@yearly" in UTC');
    });

    it('deletes the schedule of an automation whose row was deleted without the service', async () => {
      const id = await createSchedule('@yearly');
      // What deleting an account does to its automations (a cascade), or a DELETE whose process died.
      await api.database.orm.em.fork().getConnection().execute(`delete from "automations" where "id" = ?`, [id]);
      // The schedule is deleted first, then the record of its removal.
      const removalsLeft = async () => {
        const [row] = await api.database.orm.em
          .fork()
          .getConnection()
          .execute<{ count: number }[]>(
            `select count(*)::int as "count" from "automation_trigger_removals" where "automation_id" = ?`,
            [id],
          );
        return row!.count;
      };
      const scheduleGone = () =>
        client()
          .schedule.getHandle(id)
          .describe()
          .then(
            () => false,
            () => true,
          );
      const after = await until(
        async () => ({ gone: await scheduleGone(), left: await removalsLeft() }),
        (state) => state.gone && state.left === 0,
      );
      expect(after).toEqual({ gone: true, left: 0 });
    });
  });
});
