import { describe, expect, it } from 'vitest';
import { AccountSlots } from '../../src/functions/account-slots.ts';

const settledNow = async <T>(promise: Promise<T>) => {
  const pending = Symbol('pending');
  return Promise.race([promise, new Promise<typeof pending>((resolve) => setImmediate(() => resolve(pending)))]).then(
    (value) => (value === pending ? 'pending' : value),
  );
};

/** Every handover of a release is promise work: it has all settled before the next turn of the event loop. */
const settledHandovers = () => new Promise((resolve) => setImmediate(resolve));

describe('AccountSlots', () => {
  it('runs an account share at once, queues as many again, and defers the rest', async () => {
    const slots = new AccountSlots({ perAccount: 2, queuedPerAccount: 1, queued: 100, running: 10 });
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
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 0, queued: 100, running: 10 });
    expect(await slots.take('a')).toBeTypeOf('function');
    expect(await slots.take('a')).toBeUndefined();
    expect(await slots.take('b')).toBeTypeOf('function');
  });

  it('hands a released slot to the next waiter, in order, and frees it when nobody waits', async () => {
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 2, queued: 100, running: 10 });
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
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 0, queued: 100, running: 10 });
    const release = (await slots.take('a'))!;
    release();
    release();
    expect(await slots.take('a')).toBeTypeOf('function');
    expect(await slots.take('a')).toBeUndefined();
  });

  it('stops waiting when the run is cancelled, leaving its place to others', async () => {
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 1, queued: 100, running: 10 });
    const release = (await slots.take('a'))!;
    const cancel = new AbortController();
    const waiting = slots.take('a', cancel.signal);
    cancel.abort();
    expect(await waiting).toBeUndefined();
    const other = slots.take('a');
    release();
    expect(await other).toBeTypeOf('function');
  });

  it('runs no more than the process allows, all accounts together, and a run of an account beyond it waits', async () => {
    const slots = new AccountSlots({ perAccount: 2, queuedPerAccount: 1, queued: 100, running: 3 });
    const a = [await slots.take('a'), await slots.take('a')];
    const b = await slots.take('b');
    expect([...a, b].every((release) => typeof release === 'function')).toBe(true);
    const waiting = slots.take('c');
    expect(await settledNow(waiting)).toBe('pending');
    b!();
    expect(await waiting).toBeTypeOf('function');
  });

  it('lets an account alone use every slot of the process when no bound per account is set', async () => {
    const slots = new AccountSlots({ queuedPerAccount: 1, queued: 10, running: 6 });
    const taken = Array.from({ length: 6 }, () => slots.tryTake('a'));
    expect(taken.every((release) => typeof release === 'function')).toBe(true);
    expect(slots.tryTake('a')).toBeUndefined();
    expect(slots.tryTake('b')).toBeUndefined();
  });

  it('keeps the last free slot from an account already running, for an account running none', () => {
    const slots = new AccountSlots({ queuedPerAccount: 1, queued: 10, running: 4, keptForNewcomers: 1 });
    const taken = Array.from({ length: 4 }, () => slots.tryTake('a'));
    expect(taken.filter((release) => typeof release === 'function')).toHaveLength(3);
    const newcomer = slots.tryTake('b');
    expect(newcomer).toBeTypeOf('function');
    expect(slots.tryTake('c')).toBeUndefined();
    // Freed by the newcomer, the slot is kept again: not a's.
    newcomer!();
    expect(slots.tryTake('a')).toBeUndefined();
    expect(slots.tryTake('c')).toBeTypeOf('function');
  });

  it('leaves an account alone one slot whatever is kept for newcomers', () => {
    const slots = new AccountSlots({ queuedPerAccount: 1, queued: 10, running: 1, keptForNewcomers: 1 });
    expect(slots.tryTake('a')).toBeTypeOf('function');
  });

  it('hands a slot freed while accounts wait to the one running the fewest: a newcomer takes the first one', async () => {
    const slots = new AccountSlots({ queuedPerAccount: 4, queued: 100, running: 4 });
    const running = Array.from({ length: 4 }, () => slots.tryTake('a')!);
    const started: string[] = [];
    const wait = (account: string) =>
      slots.take(account).then((release) => {
        started.push(account);
        return release!;
      });
    const waitersOfA = [wait('a'), wait('a')];
    const newcomer = wait('b');
    running[0]!();
    await settledHandovers();
    expect(started).toEqual(['b']);
    // b runs 1, a 3: the next freed slot is a's again.
    running[1]!();
    await settledHandovers();
    expect(started).toEqual(['b', 'a']);
    for (const release of await Promise.all([newcomer, waitersOfA[0]!])) release();
    running[2]!();
    running[3]!();
    (await waitersOfA[1]!)();
  });

  it('converges on equal shares of the slots while two accounts keep waiting, whoever held them first', async () => {
    const slots = new AccountSlots({ queuedPerAccount: 100, queued: 200, running: 8 });
    const held: { account: string; release: () => void }[] = [];
    const keepWaiting = (account: string) =>
      void slots.take(account).then((release) => held.push({ account, release: release! }));
    for (let i = 0; i < 8; i++) held.push({ account: 'a', release: slots.tryTake('a')! });
    for (let i = 0; i < 40; i++) ['a', 'b'].forEach(keepWaiting);
    const ended = { a: 0, b: 0 };
    for (let turn = 0; turn < 40; turn++) {
      const oldest = held.shift()!;
      ended[oldest.account as 'a' | 'b'] += 1;
      oldest.release();
      await settledHandovers();
    }
    const runningOf = (account: string) => held.filter((run) => run.account === account).length;
    expect([runningOf('a'), runningOf('b')]).toEqual([4, 4]);
    // After the 8 a held first ended, the runs ended alternate between the two.
    expect(Math.abs(ended.a - ended.b)).toBeLessThanOrEqual(8);
  });

  it('keeps a slot freed for an account refused for want of one, from the waiting runs of one that runs more, until its hold ends', async () => {
    const slots = new AccountSlots({ queuedPerAccount: 4, queued: 100, running: 2, holdMs: 200 });
    const held = [slots.tryTake('a')!, slots.tryTake('a')!];
    const waiterOfA = slots.take('a');
    expect(slots.tryTake('b')).toBeUndefined();
    held[0]!();
    await settledHandovers();
    expect(await settledNow(waiterOfA)).toBe('pending');
    const newcomer = slots.tryTake('b');
    expect(newcomer).toBeTypeOf('function');
    newcomer!();
    (await waiterOfA)!();
    // Owed and never back: the slot goes to the others once the hold ends.
    expect(slots.tryTake('a')).toBeTypeOf('function');
    const again = slots.take('a');
    expect(slots.tryTake('c')).toBeUndefined();
    held[1]!();
    expect(await settledNow(again)).toBe('pending');
    expect(await again).toBeTypeOf('function');
  });

  it('keeps an account within NEOFLOW_ACCOUNT_CONCURRENCY when one is set, however many slots are free', async () => {
    const slots = new AccountSlots({ perAccount: 2, queuedPerAccount: 0, queued: 0, running: 10 });
    expect([slots.tryTake('a'), slots.tryTake('a')].every((release) => typeof release === 'function')).toBe(true);
    expect(slots.tryTake('a')).toBeUndefined();
    expect(slots.tryTake('b')).toBeTypeOf('function');
  });

  it("sizes the waiting room from the process's total: two bursting accounts cannot fill more than it", async () => {
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 3, queued: 4, running: 10 });
    for (const account of ['a', 'b']) expect(await slots.take(account)).toBeTypeOf('function');
    const waiting = ['a', 'a', 'a', 'b', 'b'].map((account) => slots.take(account));
    // a waits 3 (its own cap), b 1 (the room's last place), b's second is refused at once.
    expect(await Promise.all(waiting.map(settledNow))).toEqual(['pending', 'pending', 'pending', 'pending', undefined]);
    expect(await slots.take('c')).toBeTypeOf('function');
    expect(await settledNow(slots.take('c'))).toBeUndefined();
  });

  it('gives a slot at once or not at all with tryTake, never passing a waiting run', async () => {
    const slots = new AccountSlots({ perAccount: 1, queuedPerAccount: 1, queued: 10, running: 10 });
    const release = slots.tryTake('a')!;
    expect(slots.tryTake('a')).toBeUndefined();
    const waiting = slots.take('a');
    release();
    expect(slots.tryTake('a')).toBeUndefined();
    expect(await waiting).toBeTypeOf('function');
  });
});
