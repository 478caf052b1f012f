import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { triggerControlOf } from '../../src/automations/trigger-control.service.ts';
import { inFullSlice, passesPerCycle, sweepAutomations } from '../../src/recovery/sweep-automations.ts';
import { api, create, echoFn, startAutomationsApi, stopAutomationsApi } from '../support/automations-api.ts';
import { until } from '../support/polling.ts';

// The recovery sweep's own pass is kept out of the way: the test runs its passes itself.
beforeAll(async () => {
  await startAutomationsApi({ env: { NEOFLOW_RECOVERY_SECONDS: '3600' } });
}, 180_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await stopAutomationsApi();
});

/** Idle automations: hourly schedules, active or paused, none firing while the test runs. */
const idle = (count: number) =>
  Promise.all(
    Array.from({ length: count }, (_, index) =>
      create({
        status: index % 4 === 0 ? 'inactive' : 'active',
        trigger: { type: 'schedule', cron: '0 0 1 1 *' },
        action: { type: 'function', functionId: echoFn },
      }),
    ),
  );

describe('a reconciler pass over many idle schedules that match their rows', () => {
  it('lists the schedules a page an RPC and describes none of them outside its rotating slice', async () => {
    const ids: string[] = (await idle(40)).map((automation: { id: string }) => automation.id);
    const control = triggerControlOf(api.services);
    const schedules = control.client.schedule;
    const listAll = async () => {
      const listed = new Map<string, { paused: boolean }>();
      for await (const summary of schedules.list({ pageSize: 1000 })) listed.set(summary.scheduleId, summary.state);
      return listed;
    };
    // Visibility lags a schedule just written: the pass is counted once all of them are listed.
    const listed = await until(listAll, (all) => ids.every((id) => all.has(id)), 60_000);

    const listCalls = vi.spyOn(schedules.workflowService, 'listSchedules');
    const describes = vi.spyOn(
      schedules as unknown as { _describeSchedule: (id: string) => unknown },
      '_describeSchedule',
    );
    for (let after: string | null = ''; after !== null;) {
      const page = await sweepAutomations(api.database.orm.em.fork(), control, after);
      expect(page.failed).toEqual([]);
      after = page.next;
    }

    expect(listCalls.mock.calls.length).toBeLessThanOrEqual(Math.ceil((listed.size + 1) / 1000));
    const described = describes.mock.calls.map(([id]) => id).filter((id) => ids.includes(id));
    expect(described.every((id) => inFullSlice(id, 1, passesPerCycle(listed.size)))).toBe(true);
    expect(described.length).toBeLessThan(ids.length / 2);
  }, 240_000);
});
