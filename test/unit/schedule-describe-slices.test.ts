import { describe, expect, it } from 'vitest';
import { inFullSlice, passesPerCycle } from '../../src/recovery/sweep-automations.ts';

const ids = (count: number) =>
  Array.from({ length: count }, (_, index) => `aut_${(index * 7919).toString(36)}x${index}`);

describe("the reconciler's rotating slice of full describes", () => {
  it('describes every schedule exactly once a cycle, a tenth a pass while schedules are few', () => {
    const schedules = ids(300);
    const passes = passesPerCycle(schedules.length);
    expect(passes).toBe(10);
    const seen = new Map<string, number>();
    for (let pass = 1; pass <= passes; pass++)
      for (const id of schedules) if (inFullSlice(id, pass, passes)) seen.set(id, (seen.get(id) ?? 0) + 1);
    expect(seen.size).toBe(schedules.length);
    expect([...seen.values()].every((times) => times === 1)).toBe(true);
  });

  it('keeps the describes of a pass about flat as schedules grow: the cycle grows instead', () => {
    for (const count of [3_000, 10_000]) {
      const schedules = ids(count);
      const passes = passesPerCycle(count);
      expect(passes).toBe(count / 50);
      const perPass = Array.from(
        { length: passes },
        (_, pass) => schedules.filter((id) => inFullSlice(id, pass, passes)).length,
      );
      expect(perPass.reduce((sum, described) => sum + described, 0)).toBe(count);
      // A hash spreads them: no pass describes more than twice its share.
      expect(Math.max(...perPass)).toBeLessThanOrEqual(100);
    }
  });
});
