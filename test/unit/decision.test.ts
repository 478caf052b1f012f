import { describe, expect, it } from 'vitest';
import { maxArgsBytes } from '../../src/chain/contract-args.ts';
import { actionSchema } from '../../src/automations/model/action.schemas.ts';
import { gasHash, gasTransferCall } from '../support/automations.ts';
import { maxInvalidMessageChars, maxSkipReasonChars, readDecision } from '../../src/automations/actions/decision.ts';

const gas = gasHash;
const neo = '0xef4073a0f2b305a38ec4050e4d3d28bc40ea63f5';
const alice = 'NPTmAHDxo6Pkyic8Nvu3kwyXoYJCvcCB6i';
const manual = { type: 'manual' } as const;
const transferEvent = {
  type: 'blockchain',
  scriptHash: gas,
  eventName: 'Transfer',
  state: { from: alice, to: alice, amount: 1500 },
  txHash: null,
  blockHash: `0x${'00'.repeat(32)}`,
  blockIndex: 7,
  notificationIndex: 0,
} as const;
const rules = { allowedContracts: [gas.toUpperCase().replace('0X', '0x')], maxCalls: 2 };
const transfer = (amount: string) => gasTransferCall(alice, alice, amount);

describe('a sending function action', () => {
  const action = { type: 'function', functionId: 'func_x' };

  it('takes execute with allowedContracts and a default maxCalls of 4', () => {
    const parsed = actionSchema.parse({ ...action, execute: { allowedContracts: [gas] } });
    expect(parsed).toEqual({ ...action, parameters: {}, execute: { allowedContracts: [gas], maxCalls: 4 } });
  });

  it.each<[string, unknown, string]>([
    ['no contract', { allowedContracts: [] }, 'must name at least one contract'],
    ['17 contracts', { allowedContracts: Array.from({ length: 17 }, () => gas) }, 'must name at most 16 contracts'],
    ['a contract twice, in two cases', { allowedContracts: [gas, gas.toUpperCase().replace('0X', '0x')] }, 'once'],
    ['a hash that is none', { allowedContracts: ['0x12'] }, 'must be 0x followed by 40 hexadecimal characters'],
    ['maxCalls 0', { allowedContracts: [gas], maxCalls: 0 }, 'must be an integer from 1 to 16'],
    ['maxCalls 17', { allowedContracts: [gas], maxCalls: 17 }, 'must be an integer from 1 to 16'],
    ['an unknown field', { allowedContracts: [gas], budget: '1' }, 'Unrecognized key'],
  ])('refuses execute with %s', (_name, execute, message) => {
    const parsed = actionSchema.safeParse({ ...action, execute });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path[0]).toBe('execute');
    expect(parsed.error!.issues[0]!.message).toContain(message);
  });
});

describe('readDecision', () => {
  it('reads calls, with their contract lower-cased and their arguments checked', () => {
    const upper = { ...transfer('1'), scriptHash: gas.toUpperCase().replace('0X', '0x') };
    expect(readDecision({ calls: [upper, transfer('2')] }, rules, manual)).toEqual({
      kind: 'calls',
      calls: [transfer('1'), transfer('2')],
    });
  });

  it('takes a call without args as one with none', () => {
    expect(readDecision({ calls: [{ scriptHash: gas, operation: 'symbol' }] }, rules, manual)).toEqual({
      kind: 'calls',
      calls: [{ scriptHash: gas, operation: 'symbol', args: [] }],
    });
  });

  it("reads Gelato's shapes as ours", () => {
    expect(readDecision({ canExec: true, calls: [transfer('1')] }, rules, manual)).toEqual({
      kind: 'calls',
      calls: [transfer('1')],
    });
    expect(readDecision({ canExec: false, message: 'price unchanged' }, rules, manual)).toEqual({
      kind: 'skip',
      reason: 'price unchanged',
    });
    expect(readDecision({ canExec: false }, rules, manual)).toEqual({ kind: 'skip', reason: 'canExec: false' });
  });

  it('reads a skip, its reason cut to what the run keeps', () => {
    expect(readDecision({ skip: 'nothing to do' }, rules, manual)).toEqual({ kind: 'skip', reason: 'nothing to do' });
    const long = readDecision({ skip: 'x'.repeat(10_000) }, rules, manual);
    expect(long).toEqual({ kind: 'skip', reason: 'x'.repeat(maxSkipReasonChars) });
  });

  it('resolves templates in arguments against the trigger, and fails on a path the trigger lacks', () => {
    const fromEvent = {
      ...transfer('{{trigger.state.amount}}'),
      args: transfer('1').args.with(2, { type: 'Integer', value: '{{trigger.state.amount}}' }),
    };
    expect(readDecision({ calls: [fromEvent] }, rules, transferEvent)).toEqual({
      kind: 'calls',
      calls: [transfer('1500')],
    });
    expect(readDecision({ calls: [fromEvent] }, rules, manual)).toEqual({
      kind: 'invalid',
      error: { name: 'TemplateError', message: expect.stringContaining('{{trigger.state.amount}}') },
    });
  });

  it('refuses a call whose arguments weigh more than the bound, as sent or once its templates are resolved', () => {
    const heavy = { ...transfer('1'), args: [{ type: 'String', value: 'x'.repeat(maxArgsBytes) }] };
    expect(readDecision({ calls: [heavy] }, rules, manual)).toEqual({
      kind: 'invalid',
      error: {
        name: 'InvalidDecision',
        message: expect.stringMatching(/calls\[0\]\.args must be at most 4096 bytes as JSON/),
      },
    });
    const event = { ...transferEvent, state: { ...transferEvent.state, memo: 'y'.repeat(maxArgsBytes) } };
    const templated = { ...transfer('1'), args: [{ type: 'String', value: '{{trigger.state.memo}}' }] };
    expect(readDecision({ calls: [templated] }, rules, event)).toEqual({
      kind: 'invalid',
      error: {
        name: 'TemplateError',
        message: expect.stringMatching(/^args: with its templates resolved, must be at most 4096 bytes/),
      },
    });
  });

  it.each<[string, unknown, RegExp]>([
    [
      'a template of no known root',
      { calls: [{ ...transfer('1'), args: [{ type: 'Integer', value: '{{trigger.nope}}' }] }] },
      /^calls\[0\]\.args\[0\]\.value names trigger\.nope/,
    ],
    ['undefined', undefined, /must be an object.*; it is undefined/],
    ['null', null, /it is null/],
    ['an array', [transfer('1')], /it is an array/],
    ['a string', 'send', /it is string/],
    ['an unknown field', { call: [transfer('1')] }, /holds the field "call"/],
    ['calls beside another field', { calls: [transfer('1')], note: 'x' }, /holds the field "note"/],
    ['both calls and skip', { calls: [transfer('1')], skip: 'no' }, /holds both calls and skip/],
    ['an empty skip', { skip: '' }, /skip must be a non-empty string/],
    ['a skip that is no string', { skip: true }, /skip must be a non-empty string.*boolean/],
    ["Gelato's callData", { canExec: true, callData: [{ to: gas, data: '0x' }] }, /callData, EVM calldata/],
    ['canExec that is no boolean', { canExec: 'yes', calls: [] }, /canExec must be true or false/],
    ['canExec false with calls', { canExec: false, calls: [transfer('1')] }, /holds the field "calls"/],
    ['canExec true with a message', { canExec: true, calls: [transfer('1')], message: 'x' }, /"message"/],
    ['canExec true without calls', { canExec: true }, /calls must be an array; it is undefined/],
    ['calls that are no array', { calls: { 0: transfer('1') } }, /calls must be an array; it is object/],
    ['no calls', { calls: [] }, /calls is empty: return \{skip/],
    ['more calls than maxCalls', { calls: [transfer('1'), transfer('2'), transfer('3')] }, /3 calls.*maxCalls \(2\)/],
    ['a call that is no object', { calls: [transfer('1'), 'transfer'] }, /^calls\[1\] must be an object/],
    [
      'a call with an unknown field',
      { calls: [{ ...transfer('1'), signers: [] }] },
      /^calls\[0\] holds the field "signers"/,
    ],
    ['a call without a script hash', { calls: [{ operation: 'x' }] }, /^calls\[0\]\.scriptHash must be 0x/],
    [
      'a call to a contract not allowed',
      { calls: [transfer('1'), { ...transfer('2'), scriptHash: neo }] },
      /^calls\[1\]\.scriptHash 0xef40.* is not one of the action's allowedContracts/,
    ],
    [
      'a call without an operation',
      { calls: [{ scriptHash: gas }] },
      /^calls\[0\]\.operation must be a string of 1 to 64/,
    ],
    ['an operation too long', { calls: [{ scriptHash: gas, operation: 'x'.repeat(65) }] }, /operation must be/],
    ['args that are no array', { calls: [{ ...transfer('1'), args: {} }] }, /^calls\[0\]\.args must be an array/],
    [
      'an argument of no type',
      { calls: [{ ...transfer('1'), args: [{ type: 'Map', value: [] }] }] },
      /^calls\[0\]\.args\[0\]\.type must be one of Hash160/,
    ],
    [
      'an integer that is a number',
      { calls: [transfer(1 as unknown as string)] },
      /^calls\[0\]\.args\[2\]\.value must be a whole number as a string/,
    ],
    [
      'a nested argument at fault',
      { calls: [{ ...transfer('1'), args: [{ type: 'Array', value: [{ type: 'Integer', value: 'x' }] }] }] },
      /^calls\[0\]\.args\[0\]\.value\[0\]\.value must be a whole number/,
    ],
    [
      '17 arguments',
      { calls: [{ ...transfer('1'), args: Array.from({ length: 17 }, () => ({ type: 'Any', value: null })) }] },
      /args must hold at most 16 arguments/,
    ],
  ])('refuses %s as InvalidDecision, naming what is wrong', (_name, result, message) => {
    const decision = readDecision(result, rules, manual);
    expect(decision.kind).toBe('invalid');
    expect(decision.kind === 'invalid' && decision.error.message).toMatch(message);
  });

  it('repeats at most 64 characters of a name the result chose, and bounds every message', () => {
    const field = 'k'.repeat(100_000);
    const unknownField = readDecision({ [field]: 1 }, rules, manual);
    expect(unknownField.kind === 'invalid' && unknownField.error.message.length).toBeLessThan(240);
    const argField = readDecision(
      { calls: [{ ...transfer('1'), args: [{ type: 'Any', value: null, [field]: 1 }] }] },
      rules,
      manual,
    );
    expect(argField.kind).toBe('invalid');
    expect(argField.kind === 'invalid' && argField.error.message.length).toBeLessThanOrEqual(maxInvalidMessageChars);
  });

  it('counts the calls before reading any of them', () => {
    const many = Array.from({ length: 100_000 }, () => null);
    const decision = readDecision({ calls: many }, rules, manual);
    expect(decision).toEqual({
      kind: 'invalid',
      error: { name: 'InvalidDecision', message: expect.stringContaining('100000 calls') },
    });
  });
});
