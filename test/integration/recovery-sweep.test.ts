import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/automation.entity.ts';
import { AutomationRun } from '../../src/automations/run.entity.ts';
import { recordRuns } from '../../src/automations/runs.ts';
import { Execution } from '../../src/functions/execution.entity.ts';
import { newExecution } from '../../src/functions/execution-record.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { ensureRecoverySchedule } from '../../src/recovery/recovery-schedule.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { callApi } from '../support/http.ts';
import { issueKey } from '../support/keys.ts';
import { startTestWorker, type RunningWorker } from '../support/worker.ts';
import { Notification } from '../../src/automations/notifications/notification.entity.ts';
import { stopWithError } from '../../src/automations/notifications/error-event.ts';
import { until } from '../support/polling.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

let api: TestApi;
let worker: RunningWorker;
let key: string;
let taskQueue: string;

beforeAll(async () => {
  taskQueue = `recovery-${randomBytes(4).toString('hex')}`;
  // The sweep every second, and anything recorded over a second ago counts as not started.
  api = await startTestApi([], { NEOFLOW_TASK_QUEUE: taskQueue, NEOFLOW_RECOVERY_SECONDS: '1' });
  ({ key } = await issueKey(api.database.orm));
  worker = await startTestWorker(api.database.url, taskQueue, { NEOFLOW_RECOVERY_SECONDS: '1' });
});
afterAll(async () => {
  await worker?.stop();
  await api?.close();
});

describe('the recovery sweep', () => {
  it('starts the workflow of an execution whose process died between its row and its start, once', async () => {
    const created = await callApi(api.url, key, 'POST', '/functions', {
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

    // Every API start asks for the schedule; the ones after the first change nothing.
    await ensureRecoverySchedule(api.services.temporal.client, taskQueue, 1000);

    const deadline = Date.now() + 30_000;
    let status = orphan.status;
    while (status === 'running' && Date.now() < deadline) {
      await sleep(200);
      status = (await api.database.orm.em.fork().findOneOrFail(Execution, { id: orphan.id })).status;
    }
    expect(status).toBe('completed');
    const details = await callApi(api.url, key, 'GET', `/functions/${fn.id}/executions/${orphan.id}`);
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
    const fn = await callApi(api.url, key, 'POST', '/functions', {
      name: 'orphan-action',
      runtime: 'node18',
      code: 'module.exports = async (context) => context.params.trigger.type;',
    });
    const created = await callApi(api.url, key, 'POST', '/automations', {
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

  it('delivers the error notifications of an automation a trigger moved to error, once', async () => {
    const receiver = await startWebhookReceiver();
    try {
      expect((await callApi(api.url, key, 'POST', '/secrets', { name: 'HOOK', value: 'sweep-secret' })).status).toBe(
        201,
      );
      const channel = { type: 'webhook', url: receiver.url('/error'), signingSecret: 'HOOK' };
      const created = await callApi(api.url, key, 'POST', '/automations', {
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
});
