import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import { until } from '../support/polling.ts';
import { rawHistory } from '../support/worker.ts';
import { uniqueAccountName } from '../support/keys.ts';
import {
  api,
  body,
  call,
  contractAction,
  create,
  deploy,
  echoFn,
  error,
  failFn,
  get,
  idsOf,
  isoMillis,
  keyFor,
  runsOf,
  settledRuns,
  startAutomationsApi,
  stopAutomationsApi,
} from '../support/automations-api.ts';

// The automations area over HTTP: runs: manual firing, history, retries, their workflows and contract actions.
beforeAll(() => startAutomationsApi());
afterAll(stopAutomationsApi);

describe('runs: manual trigger, history and retry', () => {
  it('fires a function automation manually while inactive: a run that succeeds with its execution', async () => {
    const parameters = { greeting: 'hi' };
    const automation = await create({ action: { type: 'function', functionId: echoFn, parameters } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired).toEqual({
      status: 202,
      body: {
        run: {
          id: expect.stringMatching(/^run_[A-Za-z0-9_-]{16,}$/),
          status: 'running',
          startedAt: expect.stringMatching(isoMillis),
        },
      },
    });
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toEqual({
      id: fired.body.run.id,
      network: 'default',
      status: 'success',
      startedAt: fired.body.run.startedAt,
      completedAt: expect.stringMatching(isoMillis),
      duration: expect.any(Number),
      trigger: { type: 'manual' },
      executionId: expect.stringMatching(/^exec_/),
      error: null,
    });

    const execution = await call('GET', `/functions/${echoFn}/executions/${run.executionId as string}`);
    expect(execution.body.data).toMatchObject({
      status: 'completed',
      params: { greeting: 'hi', trigger: { type: 'manual' } },
      result: { greeting: 'hi', trigger: { type: 'manual' } },
      trigger: { type: 'automation', automationId: automation.id },
    });

    const { body: got } = await get(automation.id);
    expect(got.status).toBe('inactive');
    expect(got.executionStats).toEqual({
      lastExecution: run.startedAt,
      lastStatus: 'success',
      successCount: 1,
      failureCount: 0,
      nextExecution: null,
    });

    const retried = await call('POST', `/automations/${automation.id}/runs/${run.id as string}/retry`);
    expect(retried).toEqual(error(409, 'CONFLICT'));
    const unknown = await call('POST', `/automations/${automation.id}/runs/run_doesnotexist00000000000/retry`);
    expect(unknown).toEqual(error(404, 'RUN_NOT_FOUND'));
  });

  it('answers 409 CONFLICT to a retry of a run still running', async () => {
    const slowFn = await deploy(
      "module.exports = async () => { const end = Date.now() + 2500; while (Date.now() < end) {} return 'slow'; };",
    );
    const automation = await create({ action: { type: 'function', functionId: slowFn } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    const retried = await call('POST', `/automations/${automation.id}/runs/${fired.body.run.id as string}/retry`);
    expect(retried).toEqual(error(409, 'CONFLICT'));
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({ id: fired.body.run.id, status: 'success' });
  });

  it('records a failing function as a failure run, counts it, and retries it as a new run', async () => {
    const automation = await create({ status: 'active', action: { type: 'function', functionId: failFn } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired.status).toBe(202);
    const [failed] = await settledRuns(automation.id, 1);
    expect(failed).toMatchObject({
      id: fired.body.run.id,
      status: 'failure',
      trigger: { type: 'manual' },
      executionId: expect.stringMatching(/^exec_/),
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(failed).not.toHaveProperty('retryOf');
    const { body: got } = await get(automation.id);
    expect(got.status).toBe('active');
    expect(got.executionStats).toMatchObject({
      lastExecution: failed.startedAt,
      lastStatus: 'failure',
      successCount: 0,
      failureCount: 1,
      nextExecution: expect.stringMatching(isoMillis),
    });

    const retried = await call('POST', `/automations/${automation.id}/runs/${failed.id as string}/retry`);
    expect(retried).toEqual({
      status: 202,
      body: {
        run: { id: expect.stringMatching(/^run_/), status: 'running', startedAt: expect.stringMatching(isoMillis) },
      },
    });
    expect(retried.body.run.id).not.toBe(failed.id);
    const runs = await settledRuns(automation.id, 2);
    expect(idsOf(runs)).toEqual([retried.body.run.id, failed.id]);
    expect(runs[0]).toMatchObject({
      status: 'failure',
      retryOf: failed.id,
      trigger: { type: 'manual' },
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(runs[0].executionId).not.toBe(failed.executionId);
    expect((await get(automation.id)).body.executionStats).toMatchObject({ failureCount: 2, lastStatus: 'failure' });

    // The run history: paginated, newest first, filtered by status.
    const page = await call('GET', `/automations/${automation.id}/runs`);
    expect(page.body.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false });
    const first = await call('GET', `/automations/${automation.id}/runs?limit=1`);
    expect(idsOf(first.body.runs)).toEqual([retried.body.run.id]);
    expect(first.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    const second = await call('GET', `/automations/${automation.id}/runs?limit=1&offset=1`);
    expect(idsOf(second.body.runs)).toEqual([failed.id]);
    expect(second.body.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
    expect((await runsOf(automation.id, '&status=failure')).length).toBe(2);
    expect((await call('GET', `/automations/${automation.id}/runs?status=success`)).body).toEqual({
      runs: [],
      pagination: { total: 0, limit: 20, offset: 0, hasMore: false },
    });
    for (const [query, field] of [
      ['?status=failed', 'status'],
      ['?status=completed', 'status'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?offset=-1', 'offset'],
      ['?limit=x', 'limit'],
    ]) {
      expect(await call('GET', `/automations/${automation.id}/runs${query}`)).toEqual(
        error(400, 'INVALID_REQUEST', { field }),
      );
    }

    // A run id of another automation is no run of this one.
    const other = await create();
    expect(await call('POST', `/automations/${other.id}/runs/${failed.id as string}/retry`)).toEqual(
      error(404, 'RUN_NOT_FOUND'),
    );
    expect(await runsOf(other.id)).toEqual([]);

    // Deleting the automation takes its runs with it.
    expect((await call('DELETE', `/automations/${automation.id}`)).status).toBe(200);
    expect(await call('GET', `/automations/${automation.id}/runs`)).toEqual(error(404, 'AUTOMATION_NOT_FOUND'));
  });
});

describe('workflows an operator filters on', () => {
  it('runs a function action in the one workflow of its run, labelled with the account, automation, function and trigger', async () => {
    const automation = await create({ action: { type: 'function', functionId: echoFn } });
    await call('POST', `/automations/${automation.id}/trigger`);
    const [run] = await settledRuns(automation.id, 1);
    const labelsOf = async (workflowId: string) => {
      const described = await api.services.temporal.client.workflow.getHandle(workflowId).describe();
      return Object.fromEntries(described.typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value]));
    };
    const account = expect.stringMatching(/^acct_/);
    expect(await labelsOf(run.id)).toMatchObject({
      NeoflowAccountId: account,
      NeoflowAutomationId: automation.id,
      NeoflowFunctionId: echoFn,
      NeoflowTrigger: 'manual',
    });
    // No workflow of its own: the fire reaches the code through one workflow, the run's.
    await expect(api.services.temporal.client.workflow.getHandle(run.executionId).describe()).rejects.toThrow(
      WorkflowNotFoundError,
    );
  });

  it("starts a run's workflow labelled with its function: the one search-attribute upsert of its history is its end status", async () => {
    const automation = await create({ action: { type: 'function', functionId: echoFn } });
    await call('POST', `/automations/${automation.id}/trigger`);
    const [run] = await settledRuns(automation.id, 1);
    await api.services.temporal.client.workflow.getHandle(run.id).result();
    const history = await rawHistory(api, run.id);
    const namesOf = (fields: object | null | undefined) => Object.keys(fields ?? {}).sort();
    const started = history[0]!.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields;
    expect(namesOf(started)).toEqual([
      'NeoflowAccountId',
      'NeoflowAutomationId',
      'NeoflowFunctionId',
      'NeoflowTrigger',
    ]);
    const upserts = history.flatMap((event) => {
      const upserted = event.upsertWorkflowSearchAttributesEventAttributes;
      return upserted ? [namesOf(upserted.searchAttributes?.indexedFields)] : [];
    });
    expect(upserts).toEqual([['NeoflowStatus']]);
  });

  it("begins a function action's run, runs its code and ends it in one local activity: one marker in its history", async () => {
    const automation = await create({ action: { type: 'function', functionId: echoFn } });
    await call('POST', `/automations/${automation.id}/trigger`);
    const [run] = await settledRuns(automation.id, 1);
    expect(run.status).toBe('success');
    await api.services.temporal.client.workflow.getHandle(run.id).result();
    const markers = (await rawHistory(api, run.id)).filter((event) => event.markerRecordedEventAttributes);
    expect(markers.map((event) => event.markerRecordedEventAttributes!.markerName)).toEqual(['core_local_activity']);
  });

  it('sets NeoflowStatus on a run\'s workflow as it ends: "failed" for a failure, "completed" for a success', async () => {
    const statusOf = async (workflowId: string) => {
      const described = await api.services.temporal.client.workflow.getHandle(workflowId).describe();
      return described.typedSearchAttributes.getAll().find(({ key }) => key.name === 'NeoflowStatus')?.value;
    };
    const ended = async (functionId: string) => {
      const automation = await create({ action: { type: 'function', functionId } });
      await call('POST', `/automations/${automation.id}/trigger`);
      const [run] = await settledRuns(automation.id, 1);
      // The row ends in the workflow's last local activity; the attribute comes with its completion.
      return until(
        () => statusOf(run.id),
        (status) => status !== undefined,
      );
    };
    expect(await ended(failFn)).toBe('failed');
    expect(await ended(echoFn)).toBe('completed');
  });
});

describe('contract actions', () => {
  it('fails a run whose transaction the node refuses (a signer without GAS) at once, with the node`s reason', async () => {
    const automation = await create({ action: contractAction });
    expect((await call('POST', `/automations/${automation.id}/trigger`)).status).toBe(202);
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({
      status: 'failure',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      error: {
        name: 'TransactionRejected',
        message: expect.stringMatching(/^The node refused 0x[0-9a-f]{64}: .*Insufficient funds/),
      },
    });
    // Prepared and relayed once each: the refusal is an outcome, not an activity failure retried 20 times.
    // The run's row ends inside the relay: its history is whole once its workflow has closed.
    await api.services.temporal.client.workflow.getHandle(run.id).result();
    const history = await rawHistory(api, run.id);
    const activities = history.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(activities).toEqual(['prepareContractRun', 'relayContractRun']);
    const attempts = history.flatMap((event) => event.activityTaskStartedEventAttributes?.attempt ?? []);
    expect(attempts).toEqual([1, 1]);
  });

  it('fails a run of an account without a signer at once, saying so', async () => {
    const account = uniqueAccountName('unsigned');
    const unsignedKey = await keyFor(['*'], account);
    const orm = api.database.orm;
    const [row] = await orm.em
      .getConnection()
      .execute<{ id: string }[]>('select id from accounts where name = ?', [account]);
    // An account made before signers existed, whose keys all predate them.
    await orm.em.getConnection().execute('delete from signers where account_id = ?', [row!.id]);
    const created = await call('POST', '/automations', body({ action: contractAction }), unsignedKey);
    expect(created.status).toBe(201);
    expect((await call('POST', `/automations/${created.body.id}/trigger`, undefined, unsignedKey)).status).toBe(202);
    const runs = await until(
      async () =>
        (await call('GET', `/automations/${created.body.id}/runs`, undefined, unsignedKey)).body.runs as {
          status: string;
        }[],
      (list) => list.length === 1 && list[0]!.status !== 'running',
    );
    expect(runs[0]).toMatchObject({ status: 'failure', error: { name: 'NoSigner' } });
  });

  it('fails a run whose test invocation faults with the VM exception, and signs and sends nothing', async () => {
    const automation = await create({ action: { ...contractAction, operation: 'nope' } });
    const fired = await call('POST', `/automations/${automation.id}/trigger`);
    expect(fired.status).toBe(202);
    const [run] = await settledRuns(automation.id, 1);
    expect(run).toMatchObject({
      status: 'failure',
      txHash: null,
      vmState: 'FAULT',
      gasConsumed: expect.stringMatching(/^\d+$/),
      error: { name: 'ContractFault', message: expect.stringContaining('method not found: nope') },
    });
  });
});
