import { CONST, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { assetHash, balanceFrom, balanceScript } from '../../src/chain/nep17.ts';
import type { Invocation } from '../../src/chain/stack-item.ts';

const halt = (stack: Invocation['stack']): Invocation => ({ state: 'HALT', gasconsumed: '0', exception: null, stack });
const integer = (value: string) => ({ type: 'Integer', value });

describe('NEP-17 balances', () => {
  it('names NEO, GAS and 0x script hashes by their script hash', () => {
    expect(assetHash('NEO')).toBe(CONST.NATIVE_CONTRACT_HASH.NeoToken);
    expect(assetHash('GAS')).toBe(CONST.NATIVE_CONTRACT_HASH.GasToken);
    expect(assetHash(`0x${'AB'.repeat(20)}`)).toBe('ab'.repeat(20));
  });

  it.each(['gas', 'BTC', 'ab'.repeat(20), `0x${'ab'.repeat(19)}`, 'constructor'])('refuses the asset %j', (asset) => {
    expect(() => assetHash(asset)).toThrow(/^asset must be NEO, GAS or a 0x script hash/);
  });

  it('builds a script for N3 addresses only', () => {
    const address = new wallet.Account(wallet.generatePrivateKey()).address;
    expect(balanceScript(address, 'GAS')).toMatch(/^[0-9a-f]+$/);
    // A Neo Legacy (N2) address: same format, another version byte.
    expect(() => balanceScript('ALq7AWrhAueN6mJNqk6FHJjnsEoPRytLdW', 'GAS')).toThrow(/is not a Neo N3 address/);
  });

  it('reads the amount, kept a string, and the decimals', () => {
    expect(balanceFrom('GAS', halt([integer('123456789012345678901'), integer('8')]))).toEqual({
      asset: 'GAS',
      amount: '123456789012345678901',
      decimals: 8,
    });
  });

  it.each([
    ['a fault', { ...halt([]), state: 'FAULT' as const, exception: 'contract not found' }],
    ['a missing decimals', halt([integer('1')])],
    ['a non-integer', halt([{ type: 'ByteString', value: 'AQ==' }, integer('8')])],
    ['extra items', halt([integer('1'), integer('8'), integer('0')])],
  ])('refuses %s: the contract is not a NEP-17 token', (_, invocation) => {
    expect(() => balanceFrom('0xabc', invocation)).toThrow(/^0xabc is not a NEP-17 token on this chain/);
  });
});
