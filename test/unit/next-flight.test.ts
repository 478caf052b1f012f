import { describe, expect, it } from 'vitest';
import { nextFlight } from '../../src/chain/next-flight.ts';

/** A call whose answers the test releases one at a time, counting how many were made. */
function controlled() {
  const pending: ((value: number) => void)[] = [];
  let made = 0;
  const call = () => {
    made += 1;
    return new Promise<number>((resolve) => pending.push(resolve));
  };
  return { call, made: () => made, answer: (value: number) => pending.shift()!(value) };
}

describe('nextFlight', () => {
  it('answers callers who came while a call was in flight from one call started after it ended, not from the one in flight', async () => {
    const source = controlled();
    const shared = nextFlight(source.call);
    const first = shared();
    const joined = [shared(), shared(), shared()];
    expect(source.made()).toBe(1);
    source.answer(1);
    expect(await first).toBe(1);
    await Promise.resolve();
    expect(source.made()).toBe(2);
    source.answer(2);
    expect(await Promise.all(joined)).toEqual([2, 2, 2]);
  });

  it('makes a call of its own for a caller alone, each time', async () => {
    const source = controlled();
    const shared = nextFlight(source.call);
    const one = shared();
    source.answer(1);
    expect(await one).toBe(1);
    const two = shared();
    source.answer(2);
    expect(await two).toBe(2);
    expect(source.made()).toBe(2);
  });

  it('fails the callers of a failed call only, and asks again for the next', async () => {
    let fail = true;
    const shared = nextFlight(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve(7)));
    await expect(shared()).rejects.toThrow('down');
    fail = false;
    expect(await shared()).toBe(7);
  });
});
