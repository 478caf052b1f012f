import { CONST, sc, u, wallet } from '@cityofzion/neon-js';
import { describe, expect, it } from 'vitest';
import {
  contractArgProblem,
  contractArgsSchema,
  maxArgsBytes,
  normalizeHash160,
  toContractParam,
  type ContractArg,
} from '../../src/chain/contract-args.ts';
import { balanceScript } from '../../src/chain/nep17.ts';

const alice = new wallet.Account('7d128a6d096f0c14c3a25a2b0c41cf79661bfcb4a8cc95aaaea28bde4d732344');
const bob = new wallet.Account('9ab7e154840daca3a2efadaf0df93cd3a5b51768c632f5433f86909d9b994a69');
const publicKey = alice.publicKey; // compressed: 02… or 03…
const pushed = (arg: ContractArg) => new sc.ScriptBuilder().emitContractParam(toContractParam(arg)).build();

describe('contract action arguments', () => {
  it.each<[string, unknown]>([
    ['Hash160', alice.address],
    ['Hash160', `0x${alice.scriptHash}`],
    ['Hash160', `0x${alice.scriptHash.toUpperCase()}`],
    ['Integer', '0'],
    ['Integer', '-42'],
    ['Integer', '123456789012345678901234567890'],
    ['Integer', (2n ** 255n - 1n).toString()],
    ['Integer', (-(2n ** 255n)).toString()],
    ['String', ''],
    ['String', 'héllo ✓'],
    ['Boolean', true],
    ['Boolean', false],
    ['Boolean', 'true'],
    ['Boolean', 'false'],
    ['ByteArray', ''],
    ['ByteArray', 'AQID'],
    ['ByteArray', 'AQI='],
    ['ByteArray', 'AQ=='],
    ['Hash256', `0x${'ab'.repeat(32)}`],
    ['PublicKey', publicKey],
    ['Array', []],
    [
      'Array',
      [
        { type: 'Integer', value: '1' },
        { type: 'Array', value: [{ type: 'String', value: 'x' }] },
      ],
    ],
    ['Any', null],
    ['Any', ''],
  ])('accepts a %s of %j', (type, value) => {
    expect(contractArgProblem({ type, value })).toBeNull();
    expect(() => toContractParam({ type, value })).not.toThrow();
  });

  it.each<[unknown, string, string]>([
    [null, '', 'must be an object with a type and a value'],
    [[], '', 'must be an object with a type and a value'],
    ['Integer', '', 'must be an object with a type and a value'],
    [{ type: 'hash160', value: alice.address }, 'type', 'must be one of Hash160, Integer, String, Boolean'],
    [{ type: 'Map', value: [] }, 'type', 'must be one of'],
    [{ type: 'toString', value: '' }, 'type', 'must be one of'],
    [{ value: '1' }, 'type', 'must be one of'],
    [{ type: 'Integer', value: '1', name: 'amount' }, 'name', 'is not a field of a contract argument'],
    [
      { type: 'Hash160', value: alice.scriptHash },
      'value',
      'must be a 0x script hash of 40 hex digits or a Neo N3 address',
    ],
    [{ type: 'Hash160', value: `0x${'ab'.repeat(19)}` }, 'value', 'must be a 0x script hash'],
    [{ type: 'Hash160', value: 'ALq7AWrhAueN6mJNqk6FHJjnsEoPRytLdW' }, 'value', 'must be a 0x script hash'],
    [{ type: 'Hash160', value: `${alice.address.slice(0, -1)}x` }, 'value', 'must be a 0x script hash'],
    [{ type: 'Integer', value: 100 }, 'value', 'must be a whole number as a string'],
    [{ type: 'Integer', value: '1.5' }, 'value', 'must be a whole number as a string'],
    [{ type: 'Integer', value: '1e3' }, 'value', 'must be a whole number as a string'],
    [{ type: 'Integer', value: '' }, 'value', 'must be a whole number as a string'],
    [{ type: 'Integer', value: (2n ** 255n).toString() }, 'value', 'fits in 256 bits'],
    [{ type: 'String', value: 5 }, 'value', 'must be a string'],
    [{ type: 'Boolean', value: 'yes' }, 'value', 'must be true or false'],
    [{ type: 'Boolean', value: 1 }, 'value', 'must be true or false'],
    [{ type: 'ByteArray', value: 'AQI' }, 'value', 'must be base64'],
    [{ type: 'ByteArray', value: '0102' + 'zz' }, 'value', 'must be base64'],
    [{ type: 'ByteArray', value: 'AQ-_' }, 'value', 'must be base64'],
    [{ type: 'Hash256', value: 'ab'.repeat(32) }, 'value', 'must be 0x and 64 hex digits'],
    [{ type: 'Hash256', value: `0x${'ab'.repeat(20)}` }, 'value', 'must be 0x and 64 hex digits'],
    [{ type: 'PublicKey', value: `04${'ab'.repeat(64)}` }, 'value', 'must be a compressed public key'],
    [{ type: 'PublicKey', value: publicKey.slice(0, -2) }, 'value', 'must be a compressed public key'],
    [{ type: 'PublicKey', value: `02${'ff'.repeat(32)}` }, 'value', 'must be a compressed public key'],
    [{ type: 'Array', value: { type: 'Integer', value: '1' } }, 'value', 'must be an array of arguments'],
    [{ type: 'Any', value: 0 }, 'value', 'must be null or an empty string'],
    [{ type: 'Any' }, 'value', 'must be null or an empty string'],
  ])('refuses %j at %j', (arg, path, message) => {
    const found = contractArgProblem(arg);
    expect(found?.path).toBe(path);
    expect(found?.message).toContain(message);
    expect(() => toContractParam(arg as ContractArg)).toThrow(message);
  });

  it('points inside nested arrays', () => {
    const arg = {
      type: 'Array',
      value: [
        { type: 'Integer', value: '1' },
        { type: 'String', value: 'ok' },
        { type: 'Array', value: [{ type: 'Boolean', value: 'maybe' }] },
      ],
    };
    expect(contractArgProblem(arg)).toEqual({ path: 'value.2.value.0.value', message: 'must be true or false' });
    expect(contractArgProblem({ type: 'Array', value: [{ type: 'Nope', value: 1 }] })?.path).toBe('value.0.type');
    expect(contractArgProblem({ type: 'Array', value: [7] })?.path).toBe('value.0');
  });

  it('nests arrays at most 8 deep', () => {
    const nest = (depth: number): ContractArg =>
      depth === 1 ? { type: 'Array', value: [] } : { type: 'Array', value: [nest(depth - 1)] };
    expect(contractArgProblem(nest(8))).toBeNull();
    expect(contractArgProblem(nest(9))).toEqual({
      path: `${'value.0.'.repeat(8)}value`, // the ninth array's items
      message: 'nests arrays more than 8 deep',
    });
  });

  describe('as a request schema', () => {
    it('reports the path of the faulty argument inside the args array', () => {
      const result = contractArgsSchema().safeParse([
        { type: 'Integer', value: '1' },
        { type: 'Array', value: [{ type: 'Hash160', value: 'nope' }] },
      ]);
      expect(result.success).toBe(false);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({
          path: [1, 'value', 0, 'value'],
          message: 'must be a 0x script hash of 40 hex digits or a Neo N3 address',
        }),
      ]);
    });

    it('reports every faulty argument', () => {
      const result = contractArgsSchema().safeParse([null, { type: 'Integer', value: '1' }, { type: 'X', value: 1 }]);
      expect(result.error?.issues.map((issue) => issue.path)).toEqual([[0], [2, 'type']]);
    });

    it('takes at most 16 arguments', () => {
      const arg = { type: 'Any', value: null };
      expect(contractArgsSchema().safeParse(Array(16).fill(arg)).success).toBe(true);
      expect(contractArgsSchema().safeParse(Array(17).fill(arg)).success).toBe(false);
      expect(contractArgsSchema().safeParse({ 0: arg }).success).toBe(false);
    });

    it('takes arguments of at most maxArgsBytes as JSON, and names the list when they weigh more', () => {
      // 16 strings of 250 characters: ~4.3 KB as JSON.
      const heavy = Array.from({ length: 16 }, () => ({ type: 'String', value: 'x'.repeat(250) }));
      const result = contractArgsSchema().safeParse(heavy);
      expect(result.error?.issues).toEqual([
        expect.objectContaining({ path: [], message: expect.stringMatching(/^must be at most 4096 bytes as JSON/) }),
      ]);
      const fits = [{ type: 'String', value: 'x'.repeat(maxArgsBytes - 40) }];
      expect(contractArgsSchema().safeParse(fits).success).toBe(true);
    });
  });

  describe('in a script', () => {
    it('builds a GAS transfer exactly as neon-js does', () => {
      const ours = sc.createScript({
        scriptHash: CONST.NATIVE_CONTRACT_HASH.GasToken,
        operation: 'transfer',
        args: [
          toContractParam({ type: 'Hash160', value: alice.address }),
          toContractParam({ type: 'Hash160', value: `0x${bob.scriptHash}` }),
          toContractParam({ type: 'Integer', value: '100000000' }),
          toContractParam({ type: 'Any', value: null }),
        ],
      });
      const theirs = sc.createScript({
        scriptHash: CONST.NATIVE_CONTRACT_HASH.GasToken,
        operation: 'transfer',
        args: [
          sc.ContractParam.hash160(alice.address),
          sc.ContractParam.hash160(bob.scriptHash),
          sc.ContractParam.integer(100000000),
          sc.ContractParam.any(),
        ],
      });
      expect(ours).toBe(theirs);
      // The VM reads hashes little-endian: PUSHDATA1 20 bytes, reversed.
      expect(ours).toContain(`0c14${u.reverseHex(alice.scriptHash)}`);
      expect(ours).toContain(`0c14${u.reverseHex(bob.scriptHash)}`);
    });

    it('pushes ByteArray bytes in the order base64 gives them', () => {
      expect(pushed({ type: 'ByteArray', value: 'AQID' })).toBe('0c03010203');
      expect(pushed({ type: 'ByteArray', value: Buffer.from('hello').toString('base64') })).toBe(
        `0c05${Buffer.from('hello').toString('hex')}`,
      );
    });

    it('pushes the other types as NeoVM reads them', () => {
      expect(pushed({ type: 'Boolean', value: 'false' })).toBe('09'); // PUSHF
      expect(pushed({ type: 'Boolean', value: true })).toBe('08'); // PUSHT
      expect(pushed({ type: 'Integer', value: '-1' })).toBe('0f'); // PUSHM1
      expect(pushed({ type: 'Integer', value: '1000' })).toBe('01e803'); // PUSHINT16, little-endian
      expect(pushed({ type: 'Integer', value: (-(2n ** 255n)).toString() })).toBe(`05${'00'.repeat(31)}80`);
      expect(pushed({ type: 'String', value: 'hi' })).toBe('0c026869');
      expect(pushed({ type: 'Any', value: '' })).toBe('0b'); // PUSHNULL
      expect(pushed({ type: 'Hash256', value: `0x${'00'.repeat(31)}ff` })).toBe(`0c20ff${'00'.repeat(31)}`);
      expect(pushed({ type: 'PublicKey', value: publicKey })).toBe(`0c21${publicKey}`);
      expect(
        pushed({
          type: 'Array',
          value: [
            { type: 'Integer', value: '2' },
            { type: 'String', value: 'a' },
          ],
        }),
      ).toBe(
        '0c01611212c0', // items pushed last-first, then PUSH2 PACK
      );
    });
  });

  describe('script hashes', () => {
    it('reads an address as its script hash, big-endian with 0x', () => {
      expect(normalizeHash160(alice.address)).toBe(`0x${alice.scriptHash}`);
      expect(normalizeHash160(`0x${alice.scriptHash.toUpperCase()}`)).toBe(`0x${alice.scriptHash}`);
      expect(normalizeHash160(`0x${CONST.NATIVE_CONTRACT_HASH.GasToken}`)).toBe(
        '0xd2a4cff31913016155e38e474a2c06d08be276cf',
      );
    });

    it.each(['', alice.scriptHash, `0x${'ab'.repeat(21)}`, 'ALq7AWrhAueN6mJNqk6FHJjnsEoPRytLdW', 'not an address'])(
      'refuses %j',
      (value) => {
        expect(normalizeHash160(value)).toBeNull();
      },
    );
  });
});

describe('addresses decoded only when short enough to be one', () => {
  // Base58 decoding is quadratic: a 1 MiB "address" took minutes before it was measured first.
  it.each([
    ['normalizeHash160', () => normalizeHash160('N'.repeat(1024 * 1024))],
    ['balanceScript', () => balanceScript('N'.repeat(1024 * 1024), 'GAS')],
  ])('%s refuses a 1 MiB address at once', (_what, attempt) => {
    const began = performance.now();
    let answer: unknown;
    try {
      answer = attempt();
    } catch (error) {
      answer = String(error);
    }
    // Either refusal is fine (one answers null, the other throws); decoding the megabyte is not.
    expect(answer === null || (typeof answer === 'string' && /is not a Neo N3 address/.test(answer))).toBe(true);
    expect(performance.now() - began).toBeLessThan(1_000);
  });
});
