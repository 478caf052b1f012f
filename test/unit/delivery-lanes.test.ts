import { describe, expect, it } from 'vitest';
import { deliveryLanes } from '../../src/automations/hooks/delivery-lanes.ts';

const pending = async <T>(promise: Promise<T>) => {
  const still = Symbol('pending');
  const settled = await Promise.race([promise, new Promise((resolve) => setImmediate(() => resolve(still)))]);
  return settled === still;
};

describe('deliveryLanes', () => {
  it("records two of an account's deliveries at once, the rest in turn, while another account's go at once", async () => {
    const lanes = deliveryLanes({ requests: 5, windowSeconds: 10 });
    const first = await lanes.take('a');
    const second = await lanes.take('a');
    const third = lanes.take('a');
    expect(await pending(third)).toBe(true);
    expect(await lanes.take('b')).toBeTypeOf('function');
    first!();
    expect(await third).toBeTypeOf('function');
    second!();
  });

  it("holds an account's whole rate waiting and refuses a delivery beyond it", async () => {
    const lanes = deliveryLanes({ requests: 5, windowSeconds: 10 });
    await lanes.take('a');
    await lanes.take('a');
    const waiting = Array.from({ length: 5 }, () => lanes.take('a'));
    for (const turn of waiting) expect(await pending(turn)).toBe(true);
    expect(await lanes.take('a')).toBeUndefined();
  });

  it("holds at most 8 deliveries of all accounts at once, fewer than the pool's 10 connections", async () => {
    const lanes = deliveryLanes({ requests: 5, windowSeconds: 10 });
    const turns = await Promise.all(Array.from({ length: 8 }, (_, account) => lanes.take(`account-${account}`)));
    expect(turns.every((turn) => typeof turn === 'function')).toBe(true);
    expect(await pending(lanes.take('account-9'))).toBe(true);
  });
});
