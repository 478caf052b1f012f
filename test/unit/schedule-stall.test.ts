import { describe, expect, it } from 'vitest';
import {
  scheduleStall,
  silentSince,
  stallAfterMs,
  type RunningFire,
} from '../../src/automations/schedule/schedule-stall.ts';

const now = new Date('2026-11-26T10:00:00.000Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
const afterMs = stallAfterMs(60_000);
const described = (next: Date) => ({ info: { nextActionTimes: [next] } }) as never;
const fire = (startedSecondsAgo: number, closedSecondsAgo: number | null): RunningFire => ({
  workflowId: 'auto_x-2026-11-26T09:50:00Z',
  runId: 'run',
  startedAt: ago(startedSecondsAgo),
  closedAt: closedSecondsAgo === null ? null : ago(closedSecondsAgo),
});

describe('scheduleStall: what stops an active schedule from firing', () => {
  it('nothing while its next fire is ahead or only just past, and its fires run or ended lately', () => {
    expect(scheduleStall(described(ago(-1)), [], now, afterMs)).toBeUndefined();
    expect(scheduleStall(described(ago(30)), [], now, afterMs)).toBeUndefined();
    expect(scheduleStall(described(ago(-1)), [fire(60, null), fire(200, 100)], now, afterMs)).toBeUndefined();
  });

  it('a scheduler that stopped taking time forward: its next fire lies twice the catchup window past', () => {
    expect(scheduleStall(described(ago(121)), [], now, afterMs)).toEqual({ kind: 'not-processing', since: ago(121) });
  });

  it('a scheduler still waiting on a fire whose workflow closed long ago, or is gone', () => {
    const closed = fire(600, 500);
    expect(scheduleStall(described(ago(-1)), [closed], now, afterMs)).toEqual({
      kind: 'waits-on-closed-fire',
      fire: closed,
    });
  });

  it('a fire that has run far longer than any fire does', () => {
    const endless = fire(121, null);
    expect(scheduleStall(described(ago(-1)), [endless], now, afterMs)).toEqual({
      kind: 'fire-never-ends',
      fire: endless,
    });
  });
});

describe('silentSince: an active schedule whose rows show no fire since one fell due long ago', () => {
  const everyMinute = { cron: '* * * * *', timezone: 'UTC' };
  it('nothing while the fire due after its last run is ahead or less than twice the catchup window past', () => {
    expect(silentSince(everyMinute, ago(30), now, afterMs)).toBeUndefined();
    expect(silentSince(everyMinute, ago(170), now, afterMs)).toBeUndefined();
  });

  it('the fire due after its last run, once that lies further past: 09:57:00 after a run at 09:56:10', () => {
    expect(silentSince(everyMinute, ago(230), now, afterMs)).toEqual(new Date('2026-11-26T09:57:00.000Z'));
  });

  it('counts from its cron and time zone: a daily 09:00 in Paris (08:00 UTC) run yesterday, silent since today 08:00 UTC', () => {
    const daily = { cron: '0 9 * * *', timezone: 'Europe/Paris' };
    expect(silentSince(daily, new Date('2026-11-25T08:00:00.000Z'), now, afterMs)).toEqual(
      new Date('2026-11-26T08:00:00.000Z'),
    );
    expect(silentSince(daily, new Date('2026-11-26T08:00:00.000Z'), now, afterMs)).toBeUndefined();
  });
});
