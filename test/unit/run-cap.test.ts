import { describe, expect, it } from 'vitest';
import type { Firing } from '../../src/automations/runs/fires.ts';
import { capPerAccount, refusedByCap } from '../../src/automations/runs/run-cap.ts';

const firing = (account: string, n: number, error?: Firing['error']): Firing => ({
  automation: { id: `auto_${account}_${n}`, account: { id: account } },
  fireKey: `block:${n}`,
  payload: { type: 'manual' },
  ...(error ? { error } : {}),
});

describe('the per-account cap on the runs one read starts', () => {
  it("keeps each account's first runs up to the cap, in order, and records the rest ended with RunLimitExceeded and its reason", () => {
    const firings = [
      ...Array.from({ length: 5 }, (_, n) => firing('burner', n)),
      firing('other', 0),
      firing('burner', 5),
      firing('other', 1),
    ];
    const capped = capPerAccount(firings, 3, 'Block 42');
    expect(capped.map((one) => [one.automation.id, one.error?.name ?? null])).toEqual([
      ['auto_burner_0', null],
      ['auto_burner_1', null],
      ['auto_burner_2', null],
      ['auto_burner_3', 'RunLimitExceeded'],
      ['auto_burner_4', 'RunLimitExceeded'],
      ['auto_other_0', null],
      ['auto_burner_5', 'RunLimitExceeded'],
      ['auto_other_1', null],
    ]);
    expect(capped[3]!.error!.message).toBe(
      "Block 42 fired more than 3 runs of this account's automations; this one was recorded without starting its action (NEOFLOW_ACCOUNT_RUNS_PER_READ).",
    );
    expect(capped.filter(refusedByCap)).toHaveLength(3);
    expect(capped.map(({ fireKey }) => fireKey)).toEqual(firings.map(({ fireKey }) => fireKey));
  });

  it('counts no quarantined run against the cap and keeps its own error', () => {
    const quarantined = firing('burner', 0, { name: 'InputQuarantined', message: 'unreadable' });
    const capped = capPerAccount([quarantined, firing('burner', 1), firing('burner', 2)], 2, 'Block 1');
    expect(capped.map((one) => one.error?.name ?? null)).toEqual(['InputQuarantined', null, null]);
    expect(capped.filter(refusedByCap)).toHaveLength(0);
  });
});
