import { describe, expect, it } from 'vitest';
import {
  fateOf,
  leftOf,
  refusalMessage,
  refusalOf,
  signerBudgetInForce,
} from '../../src/automations/budget/budget-rules.ts';
import { budgetSchema } from '../../src/chain/gas-budget.ts';

const gas = (units: number) => BigInt(units);

describe('a GAS budget', () => {
  it('refuses the first limit a fee would pass, counting perDay against today and total against all', () => {
    const budget = { perRun: '0.1', perDay: '0.25', total: '1' };
    expect(refusalOf(budget, { today: 0n, total: 0n }, gas(10_000_000))).toBeNull();
    expect(refusalOf(budget, { today: 0n, total: 0n }, gas(10_000_001))).toMatchObject({ limit: 'perRun', spent: 0n });
    expect(refusalOf(budget, { today: gas(20_000_000), total: gas(20_000_000) }, gas(5_000_000))).toBeNull();
    expect(refusalOf(budget, { today: gas(20_000_001), total: gas(20_000_001) }, gas(5_000_000))).toEqual({
      limit: 'perDay',
      fee: 5_000_000n,
      allowed: 25_000_000n,
      spent: 20_000_001n,
    });
    expect(refusalOf(budget, { today: 0n, total: gas(99_000_000) }, gas(1_000_001))).toMatchObject({ limit: 'total' });
  });

  it('names the fee, the limit and what is spent or reserved in a refusal', () => {
    const refusal = refusalOf({ perDay: '0.25' }, { today: 20_000_000n, total: 0n }, 10_000_000n)!;
    expect(refusalMessage(refusal, 'account')).toBe(
      "The transaction would cost 0.1 GAS (system fee plus network fee); the account's default budget allows " +
        '0.25 GAS per day (UTC), of which 0.2 GAS is spent or reserved: 0.05 GAS left.',
    );
    expect(leftOf('0.25', 30_000_000n)).toBe('0');
    expect(leftOf(undefined, 0n)).toBeNull();
  });

  it("holds a signer's spend to its own budget only (the account's default is no pool), and names it in a refusal", () => {
    const own = { total: '1' };
    expect(signerBudgetInForce(own)).toEqual({ budget: own, from: 'signer' });
    expect(signerBudgetInForce(null)).toBeNull();
    const refusal = refusalOf(own, { today: 0n, total: 95_000_000n }, 10_000_000n)!;
    expect(refusalMessage(refusal, 'signer')).toBe(
      "The transaction would cost 0.1 GAS (system fee plus network fee); the signer's budget (its spend on this network) " +
        'allows 1 GAS in total, of which 0.95 GAS is spent or reserved: 0.05 GAS left.',
    );
  });

  it('takes decimal GAS amounts over 0 with at most 8 decimals, and at least one limit', () => {
    expect(budgetSchema.safeParse({ perRun: '0.00000001' }).success).toBe(true);
    for (const wrong of [{}, { perRun: '0' }, { perDay: '0.000000001' }, { total: '1e3' }, { total: '1234567890' }]) {
      expect(budgetSchema.safeParse(wrong).success).toBe(false);
    }
  });
});

describe("a reservation's fate", () => {
  const run = { status: 'running' as const, txHash: null, systemFee: null, networkFee: null, errorName: null };
  it('is kept while its run may still store or land its transaction', () => {
    expect(fateOf({ txHash: '0xa', run })).toBe('keep');
    expect(fateOf({ txHash: '0xa', run: { ...run, txHash: '0xa' } })).toBe('keep');
    expect(fateOf({ txHash: '0xa', run: { ...run, status: 'failure', txHash: '0xa', errorName: 'Error' } })).toBe(
      'keep',
    );
  });

  it('settles at the chain`s fees once in a block, and is released when never stored, rejected or expired', () => {
    const landed = { ...run, status: 'failure' as const, txHash: '0xa', systemFee: '100', networkFee: '20' };
    expect(fateOf({ txHash: '0xa', run: landed })).toEqual({ settle: 120n });
    expect(fateOf({ txHash: '0xb', run: { ...run, txHash: '0xa' } })).toBe('release');
    expect(fateOf({ txHash: '0xa', run: { ...run, status: 'failure', errorName: 'BudgetExceeded' } })).toBe('release');
    for (const errorName of ['TransactionRejected', 'TransactionExpired']) {
      expect(fateOf({ txHash: '0xa', run: { ...run, status: 'failure', txHash: '0xa', errorName } })).toBe('release');
    }
  });
});
