import { describe, expect, it } from 'vitest';
import { AccountSlots } from '../../src/functions/account-slots.ts';

const settledNow = async <T>(promise: Promise<T>) => {
  const pending = Symbol('pending');
  return Promise.race([promise, new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending)))]).then(
    (value) => (value === pending ? 'pending' : value),
  );
};

describe('AccountSlots', () => {
  it('runs an account share at once, queues as many again, and defers the rest', async () => {
    const slots = new AccountSlots(2, 1);
    const first = await slots.take('a');
    const second = await slots.take('a');
    expect([typeof first, typeof second]).toEqual(['function', 'function']);
    const queued = slots.take('a');
    expect(await settledNow(queued)).toBe('pending');
    expect(await slots.take('a')).toBeUndefined();
    first!();
    expect(typeof (await queued)).toBe('function');
  });

  it('keeps accounts apart: a full account does not hold up another', async () => {
    const slots = new AccountSlots(1, 0);
    expect(await slots.take('a')).toBeTypeOf('function');
    expect(await slots.take('a')).toBeUndefined();
    expect(await slots.take('b')).toBeTypeOf('function');
  });

  it('hands a released slot to the next waiter, in order, and frees it when nobody waits', async () => {
    const slots = new AccountSlots(1, 2);
    const release = (await slots.take('a'))!;
    const next = slots.take('a');
    const after = slots.take('a');
    release();
    const nextRelease = (await next)!;
    expect(await settledNow(after)).toBe('pending');
    nextRelease();
    (await after)!();
    expect(await slots.take('a')).toBeTypeOf('function');
  });

  it('releases once however often a release is called', async () => {
    const slots = new AccountSlots(1, 0);
    const release = (await slots.take('a'))!;
    release();
    release();
    expect(await slots.take('a')).toBeTypeOf('function');
    expect(await slots.take('a')).toBeUndefined();
  });

  it('stops waiting when the run is cancelled, leaving its place to others', async () => {
    const slots = new AccountSlots(1, 1);
    const release = (await slots.take('a'))!;
    const cancel = new AbortController();
    const waiting = slots.take('a', cancel.signal);
    cancel.abort();
    expect(await waiting).toBeUndefined();
    const other = slots.take('a');
    release();
    expect(await other).toBeTypeOf('function');
  });
});
