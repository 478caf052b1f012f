import { sc } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { templateRootProblem, templateValue } from '../../src/automations/model/arg-templates.ts';
import { resolveCalls } from '../../src/automations/actions/resolve-calls.ts';
import { createAutomationBody } from '../../src/automations/automations.schemas.ts';
import type { FirePayload } from '../../src/automations/model/run.entity.ts';
import { contractArgProblem, type ContractArg } from '../../src/chain/contract-args.ts';
import { callsScript, type ContractCall } from '../../src/chain/contract-calls.ts';

const gas = '0xd2a4cff31913016155e38e474a2c06d08be276cf';
const from = '0x1111111111111111111111111111111111111111';
const to = '0x2222222222222222222222222222222222222222';

const transfer: FirePayload = {
  type: 'blockchain',
  scriptHash: gas,
  eventName: 'Transfer',
  state: { from, to, amount: '150000000' },
  txHash: `0x${'ab'.repeat(32)}`,
  blockHash: `0x${'cd'.repeat(32)}`,
  blockIndex: 42,
  notificationIndex: 0,
};
const price: FirePayload = { type: 'price', asset: 'NEO', currency: 'USD', price: '12.5', observedAt: null };

const call = (args: ContractArg[]): ContractCall => ({ scriptHash: gas, operation: 'transfer', args });

describe('template syntax', () => {
  it.each([
    '{{trigger.state.amount}}',
    '{{ trigger.state.from }}',
    '{{trigger.price}}',
    '{{trigger.blockIndex}}',
    '{{trigger.state.0}}',
    '{{trigger.state.a.b.c.d.e.f.g}}',
    '{{trigger.state["amount"]}}',
    "{{trigger.state['amount'].b}}",
    '{{trigger["state"][ "a b-c.d" ].x}}',
  ])('accepts %s', (value) => {
    expect(contractArgProblem({ type: 'Integer', value }, templateValue)).toBeNull();
  });

  it.each([
    ['{{trigger}}', 'must be a template of the form'],
    ['{{trigger.}}', 'must be a template of the form'],
    ['{{state.amount}}', 'must be a template of the form'],
    ['{{trigger.state.amount}} GAS', 'must be a template of the form'],
    ['{{trigger.state[amount]}}', 'must be a template of the form'],
    ['{{trigger.state["amount\']}}', 'must be a template of the form'],
    ['{{trigger.state[""]}}', 'must be a template of the form'],
    ['{{trigger.state["a\\"b"]}}', 'must be a template of the form'],
    ['{{trigger.state["é"]}}', 'must be a template of the form'],
    [`{{trigger.state["${'a'.repeat(65)}"]}}`, 'must be a template of the form'],
    ['{{trigger.state.["a"]}}', 'must be a template of the form'],
    ['{{trigger.state["a"]b}}', 'must be a template of the form'],
    ['{{triggers.state}}', 'must be a template of the form'],
    ['{{trigger.state.a-b}}', 'must be a template of the form'],
    ['{{trigger.nope}}', 'names trigger.nope, which no trigger carries'],
    ['{{trigger.price.value}}', 'names a path inside trigger.price, which has none'],
    ['{{trigger.state.a.b.c.d.e.f.g.h}}', 'must name a path at most 8 deep'],
    [`{{trigger.state.${'a'.repeat(300)}}}`, 'must be a template of at most 256 characters'],
  ])('refuses %s', (value, message) => {
    expect(contractArgProblem({ type: 'Integer', value }, templateValue)?.message).toContain(message);
  });

  it('checks templates inside an Array argument, and refuses one as the whole array', () => {
    const inner = { type: 'Array', value: [{ type: 'Integer', value: '{{trigger.nope}}' }] };
    expect(contractArgProblem(inner, templateValue)).toEqual({
      path: 'value.0.value',
      message: 'names trigger.nope, which no trigger carries',
    });
    expect(contractArgProblem({ type: 'Array', value: '{{trigger.state}}' }, templateValue)?.message).toContain(
      'its items may be templates',
    );
  });

  it('leaves other values to their type: a template still needs a valid type', () => {
    expect(contractArgProblem({ type: 'Integer', value: 'x' }, templateValue)?.message).toContain('whole number');
    expect(contractArgProblem({ type: 'Nope', value: '{{trigger.price}}' }, templateValue)?.path).toBe('type');
  });

  it('reports a bad template at its field in the create body', () => {
    const result = createAutomationBody.safeParse({
      name: 'forward',
      trigger: { type: 'blockchain', scriptHash: gas, event: 'Transfer' },
      action: { type: 'contract', scriptHash: gas, operation: 'transfer', args: [{ type: 'Integer', value: '{{x}}' }] },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['action', 'args', 0, 'value']);
  });
});

describe('template roots against the trigger type', () => {
  const args: ContractArg[] = [
    { type: 'Hash160', value: from },
    { type: 'Array', value: [{ type: 'Integer', value: '{{trigger.price}}' }] },
  ];

  it('names the first template the trigger type never carries', () => {
    expect(templateRootProblem({ type: 'schedule' }, args)).toEqual({
      field: 'args.1.value.0.value',
      message: 'names trigger.price, which a schedule trigger does not carry',
    });
    expect(templateRootProblem({ type: 'price' }, args)).toBeNull();
    expect(
      templateRootProblem({ type: 'blockchain' }, [{ type: 'Integer', value: '{{trigger.state.amount}}' }]),
    ).toBeNull();
    expect(
      templateRootProblem({ type: 'price' }, [{ type: 'Integer', value: '{{trigger.state.amount}}' }])?.field,
    ).toBe('args.0.value');
  });
});

describe('resolving calls against the trigger', () => {
  it('replaces each template by the payload value, numbers as their text, static values untouched', () => {
    const resolved = resolveCalls(
      [
        call([
          { type: 'Hash160', value: '{{trigger.state.from}}' },
          { type: 'Hash160', value: to },
          { type: 'Integer', value: '{{ trigger.state.amount }}' },
          { type: 'Array', value: [{ type: 'Integer', value: '{{trigger.blockIndex}}' }] },
          { type: 'Any', value: null },
        ]),
      ],
      transfer,
    );
    expect(resolved).toEqual([
      call([
        { type: 'Hash160', value: from },
        { type: 'Hash160', value: to },
        { type: 'Integer', value: '150000000' },
        { type: 'Array', value: [{ type: 'Integer', value: '42' }] },
        { type: 'Any', value: null },
      ]),
    ]);
  });

  it('reads a price as text, and a decoded state without an ABI by position', () => {
    expect(resolveCalls([call([{ type: 'String', value: '{{trigger.price}}' }])], price)).toEqual([
      call([{ type: 'String', value: '12.5' }]),
    ]);
    const positional = { ...transfer, state: [from, to, '7'] };
    expect(resolveCalls([call([{ type: 'Integer', value: '{{trigger.state.2}}' }])], positional)).toEqual([
      call([{ type: 'Integer', value: '7' }]),
    ]);
  });

  it('fails with TemplateError naming the argument and the path the payload lacks', () => {
    const result = resolveCalls(
      [
        call([
          { type: 'Hash160', value: to },
          { type: 'Integer', value: '{{trigger.state.amunt}}' },
        ]),
      ],
      transfer,
    );
    expect(result).toEqual({
      name: 'TemplateError',
      message: 'args.1: {{trigger.state.amunt}} names nothing in what fired this run (a blockchain fire).',
    });
    // A manual fire carries only its type.
    expect(resolveCalls([call([{ type: 'Integer', value: '{{trigger.state.amount}}' }])], { type: 'manual' })).toEqual(
      expect.objectContaining({ name: 'TemplateError' }),
    );
  });

  it('fails with TemplateError when the value does not fit the argument type', () => {
    const result = resolveCalls([call([]), call([{ type: 'Integer', value: '{{trigger.state.from}}' }])], transfer);
    expect(result).toEqual({
      name: 'TemplateError',
      message:
        'calls.1.args.0: with {{trigger.state.from}} resolved, value must be a whole number as a string that fits in 256 bits.',
    });
    const nested = {
      type: 'Array',
      value: [
        { type: 'Boolean', value: '{{trigger.state.amount}}' },
        { type: 'Integer', value: '{{trigger.blockIndex}}' },
      ],
    };
    expect(resolveCalls([call([nested])], transfer)).toEqual(
      expect.objectContaining({
        message: expect.stringContaining('args.0: with {{trigger.state.amount}} and 1 more resolved, value.0.value'),
      }),
    );
  });

  it('does not read inherited properties of the payload', () => {
    const result = resolveCalls([call([{ type: 'String', value: '{{trigger.state.constructor}}' }])], transfer);
    expect(result).toEqual(expect.objectContaining({ name: 'TemplateError' }));
  });
});

describe('one script for several calls', () => {
  it('makes every call in order, as neon-js would script them one by one', () => {
    const first = call([
      { type: 'Hash160', value: from },
      { type: 'Hash160', value: to },
      { type: 'Integer', value: '1' },
      { type: 'Any', value: null },
    ]);
    const second = { scriptHash: gas.toUpperCase().replace('0X', '0x'), operation: 'symbol', args: [] };
    const one = (c: ContractCall) => callsScript([c]);
    expect(callsScript([first, second])).toBe(one(first) + one(second));
    expect(one(second)).toBe(sc.createScript({ scriptHash: gas.slice(2), operation: 'symbol', args: [] }));
  });
});
