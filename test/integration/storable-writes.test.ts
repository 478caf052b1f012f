import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Automation } from '../../src/automations/model/automation.entity.ts';
import { stopWithError } from '../../src/automations/notifications/error-event.ts';
import { Notification } from '../../src/automations/notifications/notification.entity.ts';
import { recordNotifications } from '../../src/automations/notifications/record.ts';
import { endSent, failUnsent } from '../../src/automations/actions/run-contract.sql.ts';
import { AutomationRun } from '../../src/automations/model/run.entity.ts';
import { endRun, endRunById, recordRuns } from '../../src/automations/runs/fires.ts';
import { decodeAs } from '../../src/chain/stack-item.ts';
import { Execution } from '../../src/functions/execution.entity.ts';
import { newExecution } from '../../src/functions/execution-record.ts';
import { FunctionDef } from '../../src/functions/function.entity.ts';
import { storeEnd } from '../../src/functions/execution.sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { storeFunction } from '../support/function-rows.ts';
import { issueKey } from '../support/keys.ts';

// Each statement module that writes what a run produced, given text PostgreSQL cannot store
// (U+0000, lone surrogates): the write succeeds and the row holds U+FFFD in their place.
let db: TestDatabase;
let accountId: string;
let functionId: string;
beforeAll(async () => {
  db = await createTestDatabase();
  ({ accountId } = await issueKey(db.orm));
  functionId = (await storeFunction(db.orm, accountId, 'storable')).id;
});
afterAll(async () => {
  await db?.drop();
});

const fork = () => db.orm.em.fork();

async function newAutomation(name: string) {
  const em = fork();
  const automation = em.create(Automation, {
    account: accountId,
    name,
    status: 'active',
    triggerType: 'blockchain',
    trigger: { type: 'blockchain', scriptHash: `0x${'1'.repeat(40)}`, event: 'Said' },
    action: { type: 'webhook', url: 'http://127.0.0.1:9/hook', signingSecret: 'HOOK' },
    functionId: null,
    watchFromBlock: 0,
    errorDetails: null,
    notify: [{ on: ['error'], channel: { type: 'webhook', url: 'http://127.0.0.1:9/told', signingSecret: 'HOOK' } }],
    gasBelow: [],
    network: 'default',
  });
  await em.flush();
  return automation;
}

async function runningRun(automation: Automation, fireKey: string) {
  const [run] = await recordRuns(fork(), [{ automation, fireKey, payload: { type: 'manual' } }]);
  return run!.runId;
}

describe('writing what a run produced', () => {
  it("stores an execution's end whose logs and error hold U+0000 and lone surrogates", async () => {
    const em = fork();
    const fn = await em.findOneOrFail(FunctionDef, { id: functionId });
    const execution = newExecution(em, fn, accountId, { 'p\u0000': ['\ud800'] }, { type: 'api' });
    await em.insert(execution);
    const end = {
      status: 'failed' as const,
      secretsRead: [],
      logs: [{ level: 'info', message: 'a\u0000b \udc00', timestamp: new Date().toISOString() }],
      error: { name: 'N\u0000ame', message: 'x\u0000y', stack: 'at \ud800' },
      completedAt: new Date(),
      duration: 1,
    };
    expect(await storeEnd(fork(), execution.id, end)).toBe(true);

    const stored = await fork().findOneOrFail(Execution, { id: execution.id });
    expect(stored.params).toEqual({ 'p\uFFFD': ['\uFFFD'] });
    expect(stored.logs).toEqual([expect.objectContaining({ message: 'a\uFFFDb \uFFFD' })]);
    expect(stored.error).toEqual({ name: 'N\uFFFDame', message: 'x\uFFFDy', stack: 'at \uFFFD' });
  });

  it('records a run fired by an event whose String argument holds U+0000, in nested keys and values', async () => {
    const automation = await newAutomation('event args');
    const said = decodeAs({ type: 'ByteString', value: Buffer.from('hi\u0000there').toString('base64') }, 'String');
    expect(said).toBe('hi\u0000there');
    const state = { said, map: { 'k\u0000': ['v\u0000', '\udfff'] } };
    const payload = {
      type: 'blockchain' as const,
      scriptHash: `0x${'1'.repeat(40)}`,
      eventName: 'Said',
      state,
      txHash: null,
      blockHash: `0x${'2'.repeat(64)}`,
      blockIndex: 7,
      notificationIndex: 0,
    };
    const [run] = await recordRuns(fork(), [{ automation, fireKey: 'block:7:0', payload }]);

    const stored = await fork().findOneOrFail(AutomationRun, { id: run!.runId });
    expect(stored.trigger).toMatchObject({
      state: { said: 'hi\uFFFDthere', map: { 'k\uFFFD': ['v\uFFFD', '\uFFFD'] } },
    });
  });

  it("ends a run with a contract's FAULT message and a receiver's body holding U+0000", async () => {
    const automation = await newAutomation('faults');
    const faulted = await runningRun(automation, 'manual:fault');
    const em = fork();
    const run = await em.findOneOrFail(AutomationRun, { id: faulted });
    endRun(run, 'failure', { name: 'ContractFault', message: 'ASSERT \u0000 failed \ud800' });
    await em.flush();
    const answered = await runningRun(automation, 'manual:answer');
    await endRunById(fork(), answered, 'failure', {
      name: 'WebhookFailed',
      message: 'm',
      status: 404,
      body: 'no\u0000',
    });

    expect((await fork().findOneOrFail(AutomationRun, { id: faulted })).error).toEqual({
      name: 'ContractFault',
      message: 'ASSERT \uFFFD failed \uFFFD',
    });
    expect((await fork().findOneOrFail(AutomationRun, { id: answered })).error).toMatchObject({ body: 'no\uFFFD' });
  });

  it("ends a contract run with the VM's FAULT message holding U+0000, tested or in a block", async () => {
    const automation = await newAutomation('contract faults');
    const tested = await runningRun(automation, 'manual:tested');
    const fault = { name: 'ContractFault', message: 'at \u0000 \udc00' };
    await failUnsent(fork(), tested, fault, { vmState: 'FAULT', gasConsumed: '1' });
    const sent = await runningRun(automation, 'manual:sent');
    const inBlock = { vmState: 'FAULT' as const, gasConsumed: '1', systemFee: '1', networkFee: '1' };
    await endSent(fork(), sent, 'failure', fault, inBlock);

    for (const runId of [tested, sent]) {
      const run = await fork().findOneOrFail(AutomationRun, { id: runId });
      expect(run).toMatchObject({ status: 'failure', error: { name: 'ContractFault', message: 'at \uFFFD \uFFFD' } });
    }
  });

  it("records a notification, its delivery's outcome and an automation's error holding U+0000", async () => {
    const automation = await newAutomation('told');
    const em = fork();
    const [notificationId] = await recordNotifications(em, automation, [0], 'error:1', {
      event: 'error',
      run: null,
      reason: 'stopped \u0000',
    });
    const notification = await em.findOneOrFail(Notification, { id: notificationId! });
    notification.lastError = 'refused \u0000 \udc00';
    await em.flush();
    await stopWithError(
      fork(),
      { id: automation.id },
      { reason: 'trigger_unavailable', message: 'm', lastError: 'x\u0000' },
    );

    const stored = await fork().findOneOrFail(Notification, { id: notificationId! });
    expect(stored.message.reason).toBe('stopped \uFFFD');
    expect(stored.lastError).toBe('refused \uFFFD \uFFFD');
    const stopped = await fork().findOneOrFail(Automation, { id: automation.id });
    expect(stopped.errorDetails).toMatchObject({ lastError: 'x\uFFFD' });
  });
});
