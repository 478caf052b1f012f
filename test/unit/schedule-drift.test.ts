import { describe, expect, it } from 'vitest';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { scheduleDrift, writtenBefore, type DesiredSchedule } from '../../src/automations/schedule/schedule-drift.ts';

const now = new Date('2026-11-26T10:00:00.400Z');
const at = (seconds: number) => new Date(Date.parse('2026-11-26T10:00:00.000Z') + seconds * 1000);
const desired: DesiredSchedule = {
  paused: false,
  note: 'automation active: cron "*/5 * * * * *" in UTC',
  cron: '*/5 * * * * *',
  timezone: 'UTC',
  workflowType: 'scheduledRun',
  workflowId: 'run_1',
  taskQueue: 'neoflow',
  args: ['auto_1'],
  overlap: ScheduleOverlapPolicy.ALLOW_ALL,
  catchupWindowMs: 60_000,
};
const written = {
  state: { paused: false, note: desired.note, remainingActions: undefined as number | undefined },
  policies: { overlap: 'ALLOW_ALL', catchupWindow: 60_000, pauseOnFailure: false },
  action: {
    type: 'startWorkflow',
    workflowType: 'scheduledRun',
    workflowId: 'run_1',
    taskQueue: 'neoflow',
    args: ['auto_1'],
  },
  info: { nextActionTimes: [at(5), at(10), at(15)] },
};
const drift = (change: (copy: typeof written) => void, row = desired) => {
  const copy = structuredClone(written);
  change(copy);
  return scheduleDrift(copy as never, row, now);
};

describe('scheduleDrift: how a schedule was changed underneath its row so that it stops firing', () => {
  it('finds nothing in the schedule as written, nor while its scheduler lags behind on the cron', () => {
    expect(drift(() => {})).toEqual([]);
    expect(drift((s) => (s.info.nextActionTimes = [at(-60), at(-55)]))).toEqual([]);
  });

  it('finds a pause against an active row, by pause-on-failure (its note) or under the row`s own note', () => {
    expect(drift((s) => Object.assign(s.state, { paused: true, note: 'paused due to workflow failure' }))).toEqual([
      'paused',
    ]);
    expect(drift((s) => (s.state.paused = true))).toEqual(['paused']);
  });

  it('does not count a change of the row a request could not write (paused under another note of ours)', () => {
    const pending = (s: typeof written) =>
      Object.assign(s.state, { paused: true, note: 'automation paused: cron "*/5 * * * * *" in UTC' });
    expect(drift(pending)).toEqual([]);
    const otherCron = { ...desired, cron: '*/7 * * * * *', note: 'automation active: cron "*/7 * * * * *" in UTC' };
    expect(drift(() => {}, otherCron)).toEqual([]);
  });

  it('finds a count of remaining actions, pause-on-failure or another overlap policy or catchup window', () => {
    expect(drift((s) => (s.state.remainingActions = 0))).toEqual(['limited-actions']);
    expect(drift((s) => (s.policies.pauseOnFailure = true))).toEqual(['policies-changed']);
    expect(drift((s) => (s.policies.overlap = 'SKIP'))).toEqual(['policies-changed']);
    expect(drift((s) => (s.policies.catchupWindow = 10_000))).toEqual(['policies-changed']);
  });

  it('finds another workflow type, id, task queue or arguments', () => {
    expect(drift((s) => (s.action.taskQueue = 'elsewhere'))).toEqual(['action-changed']);
    expect(drift((s) => (s.action.workflowType = 'other'))).toEqual(['action-changed']);
    expect(drift((s) => (s.action.args = []))).toEqual(['action-changed']);
  });

  it('counts no drift in a schedule written before a fire was its run`s workflow: the reconciler converts it', () => {
    const before = (s: typeof written) => {
      Object.assign(s.action, { workflowType: 'scheduledFire', workflowId: 'auto_1' });
      s.policies.overlap = 'SKIP';
    };
    expect(drift(before)).toEqual([]);
    expect(
      writtenBefore(
        structuredClone({ ...written, action: { ...written.action, workflowType: 'scheduledFire' } }) as never,
      ),
    ).toBe(true);
    expect(writtenBefore(written as never)).toBe(false);
    // Another hand's change to it still is one.
    expect(drift((s) => (before(s), (s.policies.pauseOnFailure = true)))).toEqual(['policies-changed']);
  });

  it('finds fire times that are not the cron`s: none left (an end passed), shifted (jitter, a start ahead)', () => {
    expect(drift((s) => (s.info.nextActionTimes = []))).toEqual(['spec-changed']);
    expect(drift((s) => (s.info.nextActionTimes = [at(5.3), at(10.1)]))).toEqual(['spec-changed']);
    expect(drift((s) => (s.info.nextActionTimes = [at(3600), at(3605)]))).toEqual(['spec-changed']);
    expect(drift((s) => (s.info.nextActionTimes = [at(6), at(12)]))).toEqual(['spec-changed']);
  });
});
