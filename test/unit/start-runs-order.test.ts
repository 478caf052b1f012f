import { describe, expect, it } from 'vitest';
import { firedRun } from '../../src/automations/runs/fires.ts';
import { inAccountTurns } from '../../src/automations/runs/start-runs.ts';

const run = (account: string, n: number) =>
  firedRun(`run_${account}_${n}`, `acct_${account}`, `auto_${account}`, 'blockchain');

describe('the order a shared loop starts its runs in', () => {
  it("takes one run of each account in turn, so that one account's burst does not go first", () => {
    const runs = [run('a', 1), run('a', 2), run('a', 3), run('b', 1), run('c', 1), run('c', 2)];
    expect(inAccountTurns(runs).map(({ runId }) => runId)).toEqual([
      'run_a_1',
      'run_b_1',
      'run_c_1',
      'run_a_2',
      'run_c_2',
      'run_a_3',
    ]);
  });

  it('keeps every run once, and none for none', () => {
    const runs = Array.from({ length: 50 }, (_, n) => run(`x${n % 7}`, n));
    expect(new Set(inAccountTurns(runs))).toEqual(new Set(runs));
    expect(inAccountTurns(runs)).toHaveLength(50);
    expect(inAccountTurns([])).toEqual([]);
  });
});
