import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { connectTestTemporal } from '../support/temporal.ts';
import { until } from '../support/polling.ts';

let temporal: Awaited<ReturnType<typeof connectTestTemporal>>;
let client: Client;
beforeAll(async () => {
  temporal = await connectTestTemporal();
  client = temporal.client;
});
afterAll(() => temporal.connection.close());

/** How long after its scheduled second each workflow the schedule started was started. */
async function startDelaysMs(scheduleId: string): Promise<number[]> {
  const delays: number[] = [];
  for await (const workflow of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) {
    const scheduled = workflow.searchAttributes.TemporalScheduledStartTime?.[0] as Date | undefined;
    if (scheduled) delays.push(workflow.startTime.getTime() - new Date(scheduled).getTime());
  }
  return delays.sort((a, b) => a - b);
}

it('the dev server starts an every-second schedule within its second, not held back by a 1 s minimum timer (timer precision)', async () => {
  const scheduleId = `timer-precision-${randomBytes(4).toString('hex')}`;
  // Created half-way through a second, its timer to the next second is 0.5 s: shorter than the
  // server's default minimum (a timer fires no sooner than 1 s after it is set), so with that
  // default every start lands about half a second late; with 100 ms, on time.
  await sleep(1500 - (Date.now() % 1000));
  // No worker polls this queue: the started workflows only need to exist, so overlap is allowed.
  const schedule = await client.schedule.create({
    scheduleId,
    spec: { cronExpressions: ['* * * * * * *'] },
    action: { type: 'startWorkflow', workflowType: 'noWorkerPollsThis', taskQueue: scheduleId, args: [] },
    policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL },
  });
  try {
    const delays = await until(
      () => startDelaysMs(scheduleId),
      (found) => found.length >= 6,
      30_000,
      500,
    );
    expect(delays.length).toBeGreaterThanOrEqual(6);
    const median = delays[Math.floor(delays.length / 2)]!;
    expect(median).toBeLessThan(350);
  } finally {
    await schedule.delete();
    for await (const workflow of client.workflow.list({ query: `TemporalScheduledById = '${scheduleId}'` })) {
      await client.workflow.getHandle(workflow.workflowId, workflow.runId).terminate('test over');
    }
  }
});
