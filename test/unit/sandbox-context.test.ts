import { describe, expect, it } from 'vitest';
import { fakeServices, resultOf, run } from '../support/sandbox.ts';

const secrets = [
  { name: 'API_TOKEN', value: 'tok-123' },
  { name: 'get', value: 'a secret named get' },
];

describe('sandbox runtime context', () => {
  it('passes params, execution and environment as plain copies', async () => {
    const code = 'module.exports = async ({ params, execution, environment }) => ({ params, execution, environment });';
    const execution = { id: 'exec_abc', startedAt: '2026-11-22T01:00:00.000Z', functionId: 'func_abc' };
    const result = await resultOf(code, { params: { a: [1, { b: 'c' }] }, execution, environment: { API_URL: 'u' } });
    expect(result).toEqual({ params: { a: [1, { b: 'c' }] }, execution, environment: { API_URL: 'u' } });
  });

  // secrets.get stays the method even when a secret is named "get"; that one is read through it.
  it('reads granted secrets by key and through secrets.get', async () => {
    const code = `module.exports = async ({ secrets }) => ({
      key: secrets.API_TOKEN, viaGet: await secrets.get('API_TOKEN'), named: await secrets.get('get'),
      keys: Object.keys(secrets), missing: secrets.OTHER,
    });`;
    expect(await resultOf(code, { secrets })).toEqual({
      key: 'tok-123',
      viaGet: 'tok-123',
      named: 'a secret named get',
      keys: ['API_TOKEN'],
    });
  });

  it('rejects secrets.get of a name that is not granted, with a clear error', async () => {
    const code = `module.exports = async ({ secrets }) => secrets.get('OTHER').catch((e) => [e.name, e.message]);`;
    expect(await resultOf(code, { secrets })).toEqual(['Error', 'Secret OTHER is not granted to this function.']);
    expect(await resultOf(`module.exports = async ({ secrets }) => secrets.get('toString').catch(() => 'no')`)).toBe(
      'no',
    );
  });

  it('calls the host blockchain services with copied arguments', async () => {
    const calls: unknown[][] = [];
    const code = `module.exports = async ({ services: { blockchain } }) => ({
      balance: await blockchain.getBalance('NQ4', 'GAS'),
      height: await blockchain.getBlockCount(),
      read: await blockchain.invokeRead('0xabc', 'symbol', [{ type: 'Integer', value: '1' }]),
    });`;
    expect(await resultOf(code, { services: fakeServices(calls) })).toEqual({
      balance: { asset: 'GAS', amount: '100000000', decimals: 8 },
      height: 4242,
      read: { state: 'HALT', scriptHash: '0xabc', operation: 'symbol', args: [{ type: 'Integer', value: '1' }] },
    });
    expect(calls).toEqual([['getBalance', 'NQ4', 'GAS']]);
  });

  it('turns a host service error into a plain Error with the message only', async () => {
    const code = `module.exports = async ({ services }) => {
      try { await services.blockchain.getBalance('bad', 'NEO'); } catch (e) {
        return { plain: Object.getPrototypeOf(e) === Error.prototype, message: e.message, stack: e.stack };
      }
    };`;
    const result = (await resultOf(code)) as { plain: boolean; message: string; stack: string };
    expect(result).toMatchObject({ plain: true, message: 'invalid address' });
    expect(result.stack).not.toMatch(/node_modules|\/work\/|host-calls|file:/);
  });

  it('fails the run with a host service error the code does not catch', async () => {
    const outcome = await run(`module.exports = ({ services }) => services.blockchain.getBalance('bad', 'NEO');`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'Error', message: 'invalid address' } });
  });
});

describe('sandbox random service', () => {
  it('gives hex bytes, integers within [min, max] and v4 uuids', async () => {
    const code = `module.exports = ({ services: { random } }) => ({
      bytes: random.bytes(16), empty: random.bytes(0),
      ints: Array.from({ length: 200 }, () => random.int(1, 3)),
      uuids: [random.uuid(), random.uuid()],
    });`;
    const result = (await resultOf(code)) as { bytes: string; empty: string; ints: number[]; uuids: string[] };
    expect(result.bytes).toMatch(/^[0-9a-f]{32}$/);
    expect(result.empty).toBe('');
    expect(new Set(result.ints)).toEqual(new Set([1, 2, 3]));
    expect(result.uuids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.uuids[0]).not.toBe(result.uuids[1]);
  });

  it('throws a plain Error for invalid arguments', async () => {
    const code = `module.exports = ({ services: { random } }) => [() => random.bytes(-1), () => random.int(5, 1)].map((f) => {
      try { f(); } catch (e) { return [Object.getPrototypeOf(e) === Error.prototype, e.message]; }
    });`;
    expect(await resultOf(code)).toEqual([
      [true, 'random.bytes(n) needs an integer n between 0 and 65536.'],
      [true, 'random.int(min, max) needs safe integers with min <= max.'],
    ]);
  });
});
