import { describe, expect, it } from 'vitest';
import type { Invocation } from '../../src/chain/stack-item.ts';
import { decideState, freshMark, isDue, observedValue } from '../../src/automations/model/state-trigger-value.ts';

const halt = (...stack: Invocation['stack']): Invocation => ({
  state: 'HALT',
  gasconsumed: '0',
  exception: null,
  stack,
});
const integer = (value: string) => ({ type: 'Integer', value });

describe('observedValue', () => {
  it('reads the returned Integer, or the one at a path inside an Array or Struct', () => {
    expect(observedValue(halt(integer('42')), undefined)).toEqual({ value: '42', numeric: 42n });
    const nested = halt({ type: 'Array', value: [integer('1'), { type: 'Struct', value: [integer('7')] }] });
    expect(observedValue(nested, '1.0')).toEqual({ value: '7', numeric: 7n });
    expect(observedValue(nested, '5')).toEqual({ problem: 'the result has no item at path 5' });
  });

  it('names a fault, and a result that is no value to compare', () => {
    expect(observedValue({ ...halt(), state: 'FAULT', exception: 'boom' }, undefined)).toEqual({
      problem: 'the call faulted: boom',
    });
    expect(observedValue(halt({ type: 'Map', value: [] }), undefined)).toMatchObject({ problem: expect.any(String) });
    expect(observedValue(halt({ type: 'ByteString', value: 'AQ==' }), undefined)).toEqual({
      value: 'AQ==',
      numeric: 1n,
    });
  });
});

describe('decideState', () => {
  const observed = (n: bigint) => ({ value: String(n), numeric: n });

  it('fires when the condition becomes true, not while it stays true, again once seen false', () => {
    const crossing = decideState('above', 10n, freshMark, observed(11n));
    expect(crossing).toEqual({ fire: true, mark: { armed: false, lastValue: '11' } });
    const still = decideState('above', 10n, { armed: false, lastValue: '11' }, observed(12n));
    expect(still).toEqual({ fire: false, mark: { armed: false, lastValue: '12' } });
    const fell = decideState('above', 10n, { armed: false, lastValue: '12' }, observed(10n));
    expect(fell).toEqual({ fire: false, mark: { armed: true, lastValue: '10' } });
    expect(decideState('above', 10n, { armed: true, lastValue: '10' }, observed(20n))).toMatchObject({ fire: true });
    expect(decideState('below', 10n, freshMark, observed(9n))).toMatchObject({ fire: true });
    expect(decideState('equals', 10n, freshMark, observed(10n))).toMatchObject({ fire: true });
  });

  it('fires `changed` on a value other than the last seen, never on the first', () => {
    expect(decideState('changed', null, freshMark, observed(1n))).toMatchObject({ fire: false });
    expect(decideState('changed', null, { armed: true, lastValue: '1' }, observed(1n))).toMatchObject({ fire: false });
    expect(decideState('changed', null, { armed: true, lastValue: '1' }, observed(2n))).toMatchObject({ fire: true });
  });

  it('refuses to compare bytes that are no integer', () => {
    expect(decideState('above', 1n, freshMark, { value: 'x', numeric: null })).toMatchObject({
      problem: expect.any(String),
    });
  });
});

describe('isDue', () => {
  it('evaluates once in each aligned window of everyBlocks', () => {
    expect(isDue(100, 10, null)).toBe(true);
    expect(isDue(105, 10, 100)).toBe(false);
    expect(isDue(110, 10, 105)).toBe(true);
    expect(isDue(101, 1, 100)).toBe(true);
    expect(isDue(100, 1, 100)).toBe(false);
  });
});
