import { describe, expect, it } from 'vitest';
import { systemFeeFor } from '../../src/chain/transaction.ts';

describe('the system fee of a contract call', () => {
  it('is the test run`s GAS plus 10%, and at least 0.01 GAS more', () => {
    expect(systemFeeFor('0')).toBe(1_000_000n);
    expect(systemFeeFor('997775')).toBe(1_997_775n);
    expect(systemFeeFor('10000000')).toBe(11_000_000n);
    expect(systemFeeFor('123456789')).toBe(135_802_467n);
  });
});
