import { randomBytes } from 'node:crypto';
import type { Client, ScheduleSummary } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { EncryptionCodec } from '../../src/temporal/codec.ts';
import { connectTemporal } from '../../src/temporal/connect.ts';
import { resealSchedules } from '../../src/temporal/reseal-schedules.ts';

// A payload-key rotation on the tests' Temporal server: a schedule sealed under the old key is
// sealed again under the new one, after which the new key alone opens what it stores.
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function clientWith(payloadKey: Buffer, previousPayloadKeys: Buffer[] = []) {
  const { connection, client } = await connectTemporal({
    address: inject('temporalAddress'),
    namespace: 'default',
    payloadKey,
    previousPayloadKeys,
  });
  closers.push(() => connection.close());
  return client;
}

describe('a payload-key rotation', () => {
  it("seals a schedule's stored arguments again under the new key, which then opens them alone", async () => {
    const scheduleId = `rotation-${randomBytes(4).toString('hex')}`;
    const before = await clientWith(oldKey);
    await before.schedule.create({
      scheduleId,
      spec: { cronExpressions: ['0 0 1 1 *'] },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'rotation', args: ['auto_rotated'] },
      state: { paused: true, note: 'kept paused across the rotation' },
    });
    closers.unshift(() => before.schedule.getHandle(scheduleId).delete());

    // Another application's schedule, under a key this process does not hold: left alone, and no
    // reason to stop (the tests' own schedules on this server are such to this codec too).
    const foreignId = `foreign-${randomBytes(4).toString('hex')}`;
    const foreign = await clientWith(randomBytes(32));
    await foreign.schedule.create({
      scheduleId: foreignId,
      spec: { cronExpressions: ['0 0 1 1 *'] },
      action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'rotation', args: ['auto_foreign'] },
      state: { paused: true },
    });
    closers.unshift(() => foreign.schedule.getHandle(foreignId).delete());

    const rotating = await clientWith(newKey, [oldKey]);
    const rotated = await resealSchedules(rotating, new EncryptionCodec(newKey, [oldKey]));
    expect(rotated.resealed).toContain(scheduleId);
    expect(rotated.resealed).not.toContain(foreignId);
    // Done once: a second pass finds nothing left under the old key.
    expect((await resealSchedules(rotating, new EncryptionCodec(newKey, [oldKey]))).resealed).not.toContain(scheduleId);

    const after = await (await clientWith(newKey)).schedule.getHandle(scheduleId).describe();
    expect(after.action).toMatchObject({ workflowType: 'scheduledFire', args: ['auto_rotated'] });
    expect(after.state).toMatchObject({ paused: true, note: 'kept paused across the rotation' });
    await expect(
      (await clientWith(oldKey)).schedule.getHandle(scheduleId).describe(),
      'the old key alone no longer opens it',
    ).rejects.toThrow(/unknown key id/);
  });

  it('passes over schedules deleted since the listing, before their describe or their update', async () => {
    const sealedUnderOldKey = async (prefix: string) => {
      const scheduleId = `${prefix}-${randomBytes(4).toString('hex')}`;
      await (
        await clientWith(oldKey)
      ).schedule.create({
        scheduleId,
        spec: { cronExpressions: ['0 0 1 1 *'] },
        action: { type: 'startWorkflow', workflowType: 'scheduledFire', taskQueue: 'rotation', args: ['auto_gone'] },
        state: { paused: true },
      });
      return scheduleId;
    };
    // Deleted before the pass: a listing that lags the delete (visibility's may) still names it.
    const goneBeforeDescribe = await sealedUnderOldKey('gone-before-describe');
    // Deleted between its describe, which finds it sealed under the old key, and its update.
    const goneBeforeUpdate = await sealedUnderOldKey('gone-before-update');
    const rotating = await clientWith(newKey, [oldKey]);
    await rotating.schedule.getHandle(goneBeforeDescribe).delete();
    closers.unshift(() =>
      rotating.schedule
        .getHandle(goneBeforeUpdate)
        .delete()
        .catch(() => undefined),
    );

    const listed: ScheduleSummary[] = [];
    for await (const summary of rotating.schedule.list()) listed.push(summary);
    const lagging = withSchedules(rotating, {
      list: async function* () {
        yield* listed;
        yield { scheduleId: goneBeforeDescribe };
      },
      getHandle: (scheduleId: string) => {
        const handle = rotating.schedule.getHandle(scheduleId);
        if (scheduleId !== goneBeforeUpdate) return handle;
        return Object.assign(Object.create(handle) as typeof handle, {
          update: async (...args: Parameters<typeof handle.update>) => {
            await handle.delete();
            return handle.update(...args);
          },
        });
      },
    });

    const rotated = await resealSchedules(lagging, new EncryptionCodec(newKey, [oldKey]));
    expect(rotated.checked).toBeGreaterThanOrEqual(2);
    expect(rotated.resealed).not.toContain(goneBeforeDescribe);
    expect(rotated.resealed).not.toContain(goneBeforeUpdate);
    await expect(
      rotating.schedule.getHandle(goneBeforeUpdate).describe(),
      'deleted before its update',
    ).rejects.toThrow();
  });
});

/** `client` with its schedule client's `list` and `getHandle` replaced: what a pass sees is set. */
function withSchedules(client: Client, replaced: Record<'list' | 'getHandle', unknown>): Client {
  const schedule = Object.assign(Object.create(client.schedule) as Client['schedule'], replaced);
  return Object.assign(Object.create(client) as Client, { schedule });
}
