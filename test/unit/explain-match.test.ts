import { CONST, sc, u, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { triggerSchema, type TransactionTrigger } from '../../src/automations/model/trigger.schemas.ts';
import {
  explainNotification,
  explainTransaction,
  matchesNotification,
  matchesTransaction,
  type Notification,
  type NotificationTrigger,
} from '../../src/automations/blocks/match.ts';
import { scriptCalls, type BlockTransaction } from '../../src/chain/block-transactions.ts';
import type { StackItem } from '../../src/chain/stack-item.ts';

const alice = new wallet.Account('7d128a6d096f0c14c3a25a2b0c41cf79661bfcb4a8cc95aaaea28bde4d732344');
const bob = new wallet.Account('9ab7e154840daca3a2efadaf0df93cd3a5b51768c632f5433f86909d9b994a69');
const gas = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;
const neo = `0x${CONST.NATIVE_CONTRACT_HASH.NeoToken}`;

const account = (who: { scriptHash: string }): StackItem => ({
  type: 'ByteString',
  value: u.hex2base64(u.reverseHex(who.scriptHash)),
});
const integer = (value: string): StackItem => ({ type: 'Integer', value });
const text = (value: string): StackItem => ({ type: 'ByteString', value: Buffer.from(value).toString('base64') });

const transferAbi = [
  { name: 'from', type: 'Hash160' },
  { name: 'to', type: 'Hash160' },
  { name: 'amount', type: 'Integer' },
];
const transfer = (amount: string, contract = gas, eventName = 'Transfer'): Notification => ({
  contract,
  eventName,
  state: { type: 'Array', value: [account(alice), account(bob), integer(amount)] },
});

/** A GAS Transfer trigger with `filter`; more fields over it. */
const on = (filter: NotificationTrigger['filter'], more: Partial<NotificationTrigger> = {}): NotificationTrigger => ({
  scriptHash: gas,
  event: 'Transfer',
  filter,
  ...more,
});
const fires = (trigger: NotificationTrigger, notification = transfer('100')) =>
  matchesNotification(trigger, notification, transferAbi);
/** The explanation, which must agree with what the follower decides. */
const explain = (trigger: NotificationTrigger, notification = transfer('100')) => {
  const outcome = explainNotification(trigger, notification, transferAbi);
  expect(outcome.matched).toBe(matchesNotification(trigger, notification, transferAbi));
  return outcome;
};

describe('order operators on an Integer', () => {
  it('compares as big integers, at the bound and beyond 64 bits', () => {
    expect(fires(on({ amount: { gt: '99' } }))).toBe(true);
    expect(fires(on({ amount: { gt: '100' } }))).toBe(false);
    expect(fires(on({ amount: { gte: '100' } }))).toBe(true);
    expect(fires(on({ amount: { lt: 101 } }))).toBe(true);
    expect(fires(on({ amount: { lt: '100' } }))).toBe(false);
    expect(fires(on({ amount: { lte: 100 } }))).toBe(true);
    const big = '123456789012345678901234567890';
    expect(fires(on({ amount: { gt: '123456789012345678901234567889' } }), transfer(big))).toBe(true);
    expect(fires(on({ amount: { lt: '123456789012345678901234567890' } }), transfer(big))).toBe(false);
    expect(fires(on({ amount: { gt: '-1' } }), transfer('0'))).toBe(true);
    expect(fires(on({ amount: { lt: '-5' } }), transfer('-6'))).toBe(true);
  });

  it('holds every operator of one key together: a range', () => {
    const range = on({ amount: { gte: '10', lt: '1000' } });
    expect(fires(range, transfer('10'))).toBe(true);
    expect(fires(range, transfer('999'))).toBe(true);
    expect(fires(range, transfer('1000'))).toBe(false);
    expect(fires(range, transfer('9'))).toBe(false);
  });

  it('never holds on an argument that is no integer', () => {
    const said: Notification = { contract: gas, eventName: 'Transfer', state: { type: 'Array', value: [] } };
    expect(fires(on({ amount: { gt: '0' } }), said)).toBe(false);
    const abi = [{ name: 'amount', type: 'Integer' }];
    const mapped: Notification = {
      contract: gas,
      eventName: 'Transfer',
      state: { type: 'Array', value: [{ type: 'Map', value: [] }] },
    };
    expect(matchesNotification(on({ amount: { gt: '0' } }), mapped, abi)).toBe(false);
  });
});

describe('ne, in and contains', () => {
  it('ne and in compare as equality does: a Hash160 by address or script hash', () => {
    expect(fires(on({ from: { ne: bob.address } }))).toBe(true);
    expect(fires(on({ from: { ne: alice.address } }))).toBe(false);
    expect(fires(on({ from: { ne: `0x${alice.scriptHash.toUpperCase()}` } }))).toBe(false);
    expect(fires(on({ from: { in: [bob.address, `0x${alice.scriptHash}`] } }))).toBe(true);
    expect(fires(on({ from: { in: [bob.address] } }))).toBe(false);
    expect(fires(on({ amount: { in: ['5', 100] } }))).toBe(true);
    expect(fires(on({ amount: { ne: '100' } }))).toBe(false);
  });

  it('contains: a part of a text, or an item of a list', () => {
    const abi = [
      { name: 'memo', type: 'String' },
      { name: 'tags', type: 'Array' },
    ];
    const said: Notification = {
      contract: gas,
      eventName: 'Said',
      state: { type: 'Array', value: [text('hello world'), { type: 'Array', value: [text('a'), text('b')] }] },
    };
    const holds = (filter: NotificationTrigger['filter']) =>
      matchesNotification({ scriptHash: gas, filter }, said, abi);
    expect(holds({ memo: { contains: 'lo wo' } })).toBe(true);
    expect(holds({ memo: { contains: 'bye' } })).toBe(false);
    expect(holds({ tags: { contains: 'b' } })).toBe(true);
    expect(holds({ tags: { contains: 'c' } })).toBe(false);
  });

  it('an object that is no operators never matches (the schema refuses it)', () => {
    expect(fires(on({ amount: { between: '1' } as never }))).toBe(false);
  });
});

describe('lists and anyOf', () => {
  it('event and scriptHash lists match any of theirs', () => {
    expect(fires(on({}, { scriptHash: [neo, gas] }))).toBe(true);
    expect(fires(on({}, { scriptHash: [neo] }))).toBe(false);
    expect(fires(on({}, { event: ['Approval', 'Transfer'] }))).toBe(true);
    expect(fires(on({}, { event: ['Approval'] }))).toBe(false);
  });

  it('anyOf holds when one of its filters does, beside filter', () => {
    const either = on({ to: bob.address }, { anyOf: [{ from: bob.address }, { from: alice.address }] });
    expect(fires(either)).toBe(true);
    const neither = on({}, { anyOf: [{ from: bob.address }, { amount: { gt: '100' } }] });
    expect(fires(neither)).toBe(false);
    const filterFails = on({ to: alice.address }, { anyOf: [{ from: alice.address }] });
    expect(fires(filterFails)).toBe(false);
  });
});

describe('explaining a notification', () => {
  it('a match has no reason', () => {
    expect(explain(on({ amount: { gte: '100' }, from: alice.address }))).toEqual({ matched: true });
  });

  it('names the filter key, what was expected and what the argument was', () => {
    expect(explain(on({ amount: { gt: '100' } }))).toEqual({
      matched: false,
      reasons: [
        {
          condition: 'filter',
          key: 'amount',
          expected: { gt: '100' },
          actual: '100',
          message: 'filter key amount: expected {"gt":"100"}, got "100"',
        },
      ],
    });
    const wrongSender = explain(on({ from: bob.address }));
    expect(wrongSender).toMatchObject({
      matched: false,
      reasons: [{ condition: 'filter', key: 'from', expected: bob.address, actual: `0x${alice.scriptHash}` }],
    });
  });

  it('names every condition that fails: contract, event, each key; a missing argument too', () => {
    const outcome = explain(on({ from: bob.address, memo: 'x' }), transfer('1', neo, 'Approval'));
    expect(outcome.matched).toBe(false);
    const reasons = outcome.matched ? [] : outcome.reasons;
    expect(reasons.map((reason) => [reason.condition, reason.key])).toEqual([
      ['contract', undefined],
      ['event', undefined],
      ['filter', 'from'],
      ['filter', 'memo'],
    ]);
    expect(reasons[0]).toMatchObject({ expected: gas, actual: neo });
    expect(reasons[1]).toMatchObject({ expected: 'Transfer', actual: 'Approval' });
    expect(reasons[3]).toMatchObject({ actual: null, message: 'filter key memo: the event has no such argument' });
  });

  it('explains an anyOf by each of its filters', () => {
    const outcome = explain(on({}, { anyOf: [{ from: bob.address }, { amount: { lt: '5' } }] }));
    expect(outcome).toMatchObject({
      matched: false,
      reasons: [
        {
          condition: 'anyOf',
          alternatives: [
            [{ condition: 'filter', key: 'from', expected: bob.address }],
            [{ condition: 'filter', key: 'amount', expected: { lt: '5' }, actual: '100' }],
          ],
        },
      ],
    });
  });

  it('cuts a long value short in its message', () => {
    const long = 'x'.repeat(1000);
    const outcome = explain(on({ from: long }));
    expect(outcome.matched ? '' : outcome.reasons[0]!.message.length).toBeLessThan(300);
  });
});

describe('transaction triggers', () => {
  const sent = (more: Partial<BlockTransaction> = {}): BlockTransaction => ({
    blockIndex: 7,
    blockHash: `0x${'cd'.repeat(32)}`,
    txHash: `0x${'ab'.repeat(32)}`,
    sender: `0x${alice.scriptHash}`,
    calls: [{ scriptHash: gas, operation: 'transfer' }],
    vmState: 'FAULT',
    exception: 'ASSERT is executed with false result.',
    ...more,
  });
  const trigger = (more: Partial<TransactionTrigger>): TransactionTrigger => ({ type: 'transaction', ...more });

  it('matches the sender by address or script hash, the contract, the operation and the VM state', () => {
    expect(matchesTransaction(trigger({ sender: alice.address }), sent())).toBe(true);
    expect(matchesTransaction(trigger({ sender: `0x${alice.scriptHash}` }), sent())).toBe(true);
    expect(matchesTransaction(trigger({ sender: bob.address }), sent())).toBe(false);
    expect(matchesTransaction(trigger({ scriptHash: [neo, gas], operation: 'transfer' }), sent())).toBe(true);
    expect(matchesTransaction(trigger({ scriptHash: neo }), sent())).toBe(false);
    expect(matchesTransaction(trigger({ scriptHash: gas, operation: 'approve' }), sent())).toBe(false);
    expect(matchesTransaction(trigger({ sender: alice.address, vmState: 'FAULT' }), sent())).toBe(true);
    expect(matchesTransaction(trigger({ sender: alice.address, vmState: 'HALT' }), sent())).toBe(false);
  });

  it('the operation of another contract than those named does not count', () => {
    const calls = [
      { scriptHash: neo, operation: 'vote' },
      { scriptHash: gas, operation: 'transfer' },
    ];
    expect(matchesTransaction(trigger({ scriptHash: gas, operation: 'vote' }), sent({ calls }))).toBe(false);
    expect(matchesTransaction(trigger({ sender: alice.address, operation: 'vote' }), sent({ calls }))).toBe(true);
  });

  it('an outcome not read yet passes the VM state (the follower reads it for candidates only)', () => {
    expect(matchesTransaction(trigger({ sender: alice.address, vmState: 'HALT' }), sent({ vmState: null }))).toBe(true);
  });

  it('explains each condition that fails', () => {
    const outcome = explainTransaction(
      trigger({ sender: bob.address, scriptHash: neo, operation: 'vote', vmState: 'HALT' }),
      sent(),
    );
    expect(outcome.matched).toBe(false);
    expect(outcome.matched ? [] : outcome.reasons.map((reason) => [reason.condition, reason.actual])).toEqual([
      ['sender', `0x${alice.scriptHash}`],
      ['contract', [gas]],
      ['operation', []],
      ['vmState', 'FAULT'],
    ]);
  });
});

describe('the calls of a transaction script', () => {
  it('reads each System.Contract.Call with its contract and operation, once each', () => {
    const script = new sc.ScriptBuilder()
      .emitContractCall({ scriptHash: gas.slice(2), operation: 'transfer', args: [sc.ContractParam.integer(1)] })
      .emitContractCall({ scriptHash: neo.slice(2), operation: 'vote', args: [] })
      .emitContractCall({ scriptHash: gas.slice(2), operation: 'transfer', args: [sc.ContractParam.integer(2)] })
      .build();
    expect(scriptCalls(script)).toEqual([
      { scriptHash: gas, operation: 'transfer' },
      { scriptHash: neo, operation: 'vote' },
    ]);
  });

  it('has none in a script that makes no call or does not parse', () => {
    expect(scriptCalls('11')).toEqual([]);
    expect(scriptCalls('zz')).toEqual([]);
  });
});

describe('the trigger schemas bound what a follower compares', () => {
  const parse = (trigger: Record<string, unknown>) => triggerSchema.safeParse(trigger);
  const blockchain = (more: Record<string, unknown>) => ({ type: 'blockchain', scriptHash: gas, ...more });
  const issue = (trigger: Record<string, unknown>) => {
    const parsed = parse(trigger);
    return parsed.success ? null : parsed.error.issues.map((one) => `${one.path.join('.')}: ${one.message}`).join('; ');
  };

  it('takes operators, anyOf and lists within bounds, and plain values as before', () => {
    expect(issue(blockchain({ filter: { to: alice.address, amount: 5 } }))).toBeNull();
    expect(
      issue(blockchain({ filter: { amount: { gt: '1', lte: 99 }, from: { in: [alice.address, null] } } })),
    ).toBeNull();
    expect(issue(blockchain({ event: ['Transfer', 'Approval'], anyOf: [{ from: alice.address }] }))).toBeNull();
    expect(issue(blockchain({ scriptHash: [gas, neo] }))).toBeNull();
  });

  it('refuses operands and lists past their bounds', () => {
    expect(issue(blockchain({ filter: { amount: { gt: '1'.repeat(79) } } }))).toMatch(/amount/);
    expect(issue(blockchain({ filter: { amount: { gt: 'ten' } } }))).toMatch(/amount/);
    expect(issue(blockchain({ filter: { amount: { gt: 2 ** 60 } } }))).toMatch(/amount/);
    expect(issue(blockchain({ filter: { amount: {} } }))).toMatch(/amount/);
    expect(issue(blockchain({ filter: { amount: { between: 1 } } }))).toMatch(/amount/);
    expect(issue(blockchain({ filter: { from: { in: Array(17).fill('x') } } }))).toMatch(/from/);
    expect(issue(blockchain({ filter: { memo: { contains: 'x'.repeat(1025) } } }))).toMatch(/memo/);
    expect(issue(blockchain({ anyOf: Array(17).fill({ to: 'x' }) }))).toMatch(/anyOf/);
    expect(issue(blockchain({ anyOf: [] }))).toMatch(/anyOf/);
    expect(issue(blockchain({ event: Array.from({ length: 17 }, (_, i) => `E${i}`) }))).toMatch(/event/);
    expect(issue(blockchain({ scriptHash: [gas, gas.toUpperCase().replace('0X', '0x')] }))).toMatch(/scriptHash/);
  });

  it('a transaction trigger names a sender or a contract, and a valid VM state', () => {
    expect(issue({ type: 'transaction', sender: alice.address, vmState: 'FAULT' })).toBeNull();
    expect(issue({ type: 'transaction', scriptHash: [gas], operation: 'transfer' })).toBeNull();
    expect(issue({ type: 'transaction', vmState: 'FAULT' })).toMatch(/sender or a scriptHash/);
    expect(issue({ type: 'transaction', sender: 'nobody' })).toMatch(/sender/);
    expect(issue({ type: 'transaction', sender: alice.address, vmState: 'BREAK' })).toMatch(/vmState/);
  });
});
