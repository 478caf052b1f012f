import { CONST, u, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import { decodeState } from '../../src/automations/blocks/notification-match.ts';
import { matchesNotification as matches, type Notification } from '../../src/automations/blocks/match.ts';
import type { Filter } from '../../src/automations/model/filter.schemas.ts';
import type { EventParameter } from '../../src/chain/blocks.ts';
import type { StackItem } from '../../src/chain/stack-item.ts';

const alice = new wallet.Account('7d128a6d096f0c14c3a25a2b0c41cf79661bfcb4a8cc95aaaea28bde4d732344');
const bob = new wallet.Account('9ab7e154840daca3a2efadaf0df93cd3a5b51768c632f5433f86909d9b994a69');
const gas = `0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`;

// As neo-go's getapplicationlog shows an account: its script hash's 20 bytes, little-endian, base64.
const account = (who: { scriptHash: string }): StackItem => ({
  type: 'ByteString',
  value: u.hex2base64(u.reverseHex(who.scriptHash)),
});
const integer = (value: string): StackItem => ({ type: 'Integer', value });
const bytes = (hex: string): StackItem => ({ type: 'ByteString', value: u.hex2base64(hex) });
const text = (value: string): StackItem => ({ type: 'ByteString', value: Buffer.from(value).toString('base64') });
const any: StackItem = { type: 'Any' };

const transferAbi: EventParameter[] = [
  { name: 'from', type: 'Hash160' },
  { name: 'to', type: 'Hash160' },
  { name: 'amount', type: 'Integer' },
];

const transfer = (from: StackItem, to: StackItem, amount: string): Notification => ({
  contract: gas,
  eventName: 'Transfer',
  state: { type: 'Array', value: [from, to, integer(amount)] },
});

const aliceToBob = transfer(account(alice), account(bob), '100000000');
const mintToBob = transfer(any, account(bob), '5');

describe('blockchain trigger notifications', () => {
  describe('decoding', () => {
    it('reads a GAS transfer by its ABI', () => {
      expect(decodeState(aliceToBob.state, transferAbi)).toEqual({
        from: `0x${alice.scriptHash}`,
        to: `0x${bob.scriptHash}`,
        amount: '100000000',
      });
      expect(decodeState(mintToBob.state, transferAbi)).toEqual({ from: null, to: `0x${bob.scriptHash}`, amount: '5' });
    });

    it('reads each ABI type as its JSON form', () => {
      const abi = [
        'String',
        'Boolean',
        'Boolean',
        'Integer',
        'Integer',
        'ByteArray',
        'Hash256',
        'PublicKey',
        'Array',
        'Map',
      ];
      const state: StackItem = {
        type: 'Array',
        value: [
          text('héllo'),
          integer('1'),
          bytes('0000'),
          bytes('ff'), // little-endian two's complement: -1
          bytes('0001'), // 256
          bytes('0001ff'),
          bytes(`ff${'00'.repeat(31)}`),
          bytes(`02${'ab'.repeat(32)}`),
          { type: 'Struct', value: [integer('7'), text('x'), any] },
          {
            type: 'Map',
            value: [
              { key: text('a'), value: integer('1') },
              { key: integer('2'), value: { type: 'Boolean', value: true } },
            ],
          },
        ],
      };
      const parameters = abi.map((type, index) => ({ name: `p${index}`, type }));
      expect(decodeState(state, parameters)).toEqual({
        p0: 'héllo',
        p1: true,
        p2: false,
        p3: '-1',
        p4: '256',
        p5: 'AAH/',
        p6: `0x${'00'.repeat(31)}ff`,
        p7: `02${'ab'.repeat(32)}`,
        p8: ['7', 'x', null],
        p9: { a: '1', 2: true },
      });
    });

    it('reads items without an ABI from their stack types: printable bytes as text, others as base64', () => {
      const state: StackItem = {
        type: 'Array',
        value: [text('NEO'), account(alice), integer('-3'), { type: 'Boolean', value: false }, any, text('')],
      };
      expect(decodeState(state, null)).toEqual([
        'NEO',
        u.hex2base64(u.reverseHex(alice.scriptHash)),
        '-3',
        false,
        null,
        '',
      ]);
      expect(decodeState({ type: 'Array', value: [text('line\nbreak')] }, null)).toEqual(['bGluZQpicmVhaw==']);
    });

    it('leaves out parameters the notification lacks', () => {
      expect(decodeState({ type: 'Array', value: [account(alice)] }, transferAbi)).toEqual({
        from: `0x${alice.scriptHash}`,
      });
      expect(decodeState({ type: 'Integer', value: '1' }, null)).toEqual([]);
    });
  });

  describe('matching', () => {
    const on = (filter?: Filter, event: string | undefined = 'Transfer') => ({
      scriptHash: gas,
      ...(event !== undefined && { event }),
      ...(filter && { filter }),
    });

    it('matches the sender by address or by 0x script hash', () => {
      expect(matches(on({ from: alice.address }), aliceToBob, transferAbi)).toBe(true);
      expect(matches(on({ from: `0x${alice.scriptHash}` }), aliceToBob, transferAbi)).toBe(true);
      expect(matches(on({ from: `0x${alice.scriptHash.toUpperCase()}` }), aliceToBob, transferAbi)).toBe(true);
    });

    it('does not match another account', () => {
      expect(matches(on({ from: bob.address }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ to: alice.address }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ from: 'not an address' }), aliceToBob, transferAbi)).toBe(false);
      // The little-endian form is not the account's script hash.
      expect(matches(on({ from: `0x${u.reverseHex(alice.scriptHash)}` }), aliceToBob, transferAbi)).toBe(false);
    });

    it('matches the amount as a number or a string', () => {
      expect(matches(on({ amount: 100000000 }), aliceToBob, transferAbi)).toBe(true);
      expect(matches(on({ amount: '100000000' }), aliceToBob, transferAbi)).toBe(true);
      expect(matches(on({ amount: '100000001' }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ amount: '1e8' }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ amount: 1.5 }), aliceToBob, transferAbi)).toBe(false);
    });

    it('compares an Integer with 78 digits at most, and never parses a longer filter value', () => {
      const max = (2n ** 255n - 1n).toString();
      const huge = transfer(account(alice), account(bob), max);
      expect(matches(on({ amount: max }), huge, transferAbi)).toBe(true);
      expect(matches(on({ amount: `0${'0'.repeat(78)}${max}` }), huge, transferAbi)).toBe(false);
    });

    it('needs every filtered argument to match', () => {
      expect(matches(on({ from: alice.address, to: bob.address, amount: 100000000 }), aliceToBob, transferAbi)).toBe(
        true,
      );
      expect(matches(on({ from: alice.address, amount: 1 }), aliceToBob, transferAbi)).toBe(false);
    });

    it('matches a mint by its missing sender', () => {
      expect(matches(on({ from: null }), mintToBob, transferAbi)).toBe(true);
      expect(matches(on({ from: null }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ from: alice.address }), mintToBob, transferAbi)).toBe(false);
      expect(matches(on({ to: bob.address }), mintToBob, transferAbi)).toBe(true);
    });

    it('compares event names exactly', () => {
      expect(matches(on(), aliceToBob, transferAbi)).toBe(true);
      expect(matches(on(undefined, 'transfer'), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on(undefined, 'Approval'), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on(undefined, undefined), aliceToBob, transferAbi)).toBe(true);
    });

    it('compares script hashes in any case, and nothing from another contract', () => {
      expect(matches({ scriptHash: gas.toUpperCase().replace('0X', '0x') }, aliceToBob, transferAbi)).toBe(true);
      const neo = { ...aliceToBob, contract: `0x${CONST.NATIVE_CONTRACT_HASH.NeoToken}` };
      expect(matches(on(), neo, transferAbi)).toBe(false);
    });

    it('never matches a filter naming no parameter', () => {
      expect(matches(on({ sender: alice.address }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ 0: alice.address }), aliceToBob, transferAbi)).toBe(false);
      expect(matches(on({ 3: '1' }), aliceToBob, null)).toBe(false);
      expect(matches(on({ from: alice.address }), aliceToBob, null)).toBe(false);
    });

    it('matches by position without an ABI', () => {
      expect(matches(on({ 0: alice.address, 2: 100000000 }), aliceToBob, null)).toBe(true);
      expect(matches(on({ 1: `0x${bob.scriptHash}` }), aliceToBob, null)).toBe(true);
      expect(matches(on({ 0: bob.address }), aliceToBob, null)).toBe(false);
      expect(matches(on({ 0: null }), mintToBob, null)).toBe(true);
    });

    it('compares booleans and strings by their decoded value', () => {
      const abi = [
        { name: 'ok', type: 'Boolean' },
        { name: 'symbol', type: 'String' },
      ];
      const event = { contract: gas, eventName: 'E', state: { type: 'Array', value: [integer('1'), text('NEO')] } };
      expect(matches({ scriptHash: gas, filter: { ok: true, symbol: 'NEO' } }, event, abi)).toBe(true);
      expect(matches({ scriptHash: gas, filter: { ok: 'true' } }, event, abi)).toBe(true);
      expect(matches({ scriptHash: gas, filter: { ok: false } }, event, abi)).toBe(false);
      expect(matches({ scriptHash: gas, filter: { ok: 1 } }, event, abi)).toBe(false);
      expect(matches({ scriptHash: gas, filter: { symbol: 'neo' } }, event, abi)).toBe(false);
      expect(matches({ scriptHash: gas, filter: { symbol: { text: 'NEO' } as Filter[string] } }, event, abi)).toBe(
        false,
      );
      expect(matches({ scriptHash: gas, filter: { 1: 'NEO' } }, event, null)).toBe(true);
    });
  });
});
