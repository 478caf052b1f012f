import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as errors from '../../src/sandbox/errors.ts';
import { userError } from '../../src/sandbox/errors.ts';
import { outputLimits } from '../../src/sandbox/output.ts';
import type * as results from '../../src/sandbox/result.ts';
import { decodeResult, maxResultBytes } from '../../src/sandbox/result.ts';
import type { SandboxOutcome } from '../../src/sandbox/types.ts';
import { fakeServices, run } from '../support/sandbox.ts';

// What the host receives of a run's result and errors, recorded as it arrives.
vi.mock('../../src/sandbox/result.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof results>();
  return { ...actual, decodeResult: vi.fn(actual.decodeResult) };
});
vi.mock('../../src/sandbox/errors.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof errors>();
  return { ...actual, userError: vi.fn(actual.userError) };
});
beforeEach(() => vi.clearAllMocks());

const mib = 1024 * 1024;
const failed = (outcome: SandboxOutcome) => {
  if (outcome.status !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome.status)}`);
  return outcome.error;
};

/** The most resident memory the process gained while `work` ran, sampled as often as the loop turns. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; grownBytes: number }> {
  const before = process.memoryUsage().rss;
  let most = before;
  const sampler = setInterval(() => (most = Math.max(most, process.memoryUsage().rss)), 1);
  try {
    const value = await work();
    most = Math.max(most, process.memoryUsage().rss);
    return { value, grownBytes: most - before };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * The most the host's own heap and external memory gained while `work` ran: what the host copied,
 * without the isolate's heap (in the same process, so in its RSS), where the code made its values.
 */
async function hostHeapGrowth<T>(work: () => Promise<T>): Promise<{ value: T; grownBytes: number }> {
  const host = () => process.memoryUsage().heapUsed + process.memoryUsage().external;
  const before = host();
  let most = before;
  const sampler = setInterval(() => (most = Math.max(most, host())), 1);
  try {
    const value = await work();
    most = Math.max(most, host());
    return { value, grownBytes: most - before };
  } finally {
    clearInterval(sampler);
  }
}

/** Every string field the host's error normaliser was handed, the longest first. */
const longestErrorFieldReceived = () =>
  Math.max(
    0,
    ...vi
      .mocked(userError)
      .mock.calls.flatMap(([error]) => [error.name, error.message, error.stack])
      .map((field) => (typeof field === 'string' ? field.length : 0)),
  );

// 100 strings of 1 MiB that share one buffer: about 1 MiB in the isolate, 100 MiB when cloned.
const hundredMbMap = `const m = new Map(); const chunk = 'x'.repeat(${mib}); for (let i = 0; i < 100; i++) m.set(i, chunk + i);`;

describe('host-call arguments cross as JSON text made and measured in the isolate', () => {
  it.each([
    ['blockchain.getBalance', `services.blockchain.getBalance(m, 'GAS')`],
    ['blockchain.invokeRead', `services.blockchain.invokeRead('0x' + 'a'.repeat(40), 'op', [m])`],
    ['random.bytes', `services.random.bytes(m)`],
    ['random.int', `services.random.int(m, 1)`],
  ])(
    'fails a run passing a Map of 100 MB to %s with ServiceArgumentError, the host RSS within 50 MB',
    async (call, expression) => {
      const calls: unknown[][] = [];
      const code = `module.exports = async ({ services }) => { ${hundredMbMap} return ${expression}; };`;
      const { value: outcome, grownBytes } = await rssGrowth(() =>
        run(code, { services: fakeServices(calls), memoryLimitMb: 128 }),
      );
      expect(failed(outcome)).toMatchObject({
        name: 'ServiceArgumentError',
        message: expect.stringContaining(`The arguments of ${call} cannot be sent`),
      });
      expect(calls).toEqual([]);
      console.log(`[crossing] ${call}: RSS grew ${(grownBytes / mib).toFixed(1)} MiB`);
      expect(grownBytes).toBeLessThan(50 * mib);
    },
  );

  it.each([
    ['a Set', 'new Set([1])'],
    ['an ArrayBuffer', 'new ArrayBuffer(8)'],
    ['a typed array', 'new Uint8Array(8)'],
    ['a RegExp', '/x/g'],
    ['a BigInt', '10n'],
    ['a function', '() => 1'],
  ])('refuses %s in the arguments before the host sees them', async (_what, value) => {
    const calls: unknown[][] = [];
    const code = `module.exports = async ({ services }) => services.blockchain.getBalance(${value}, 'GAS');`;
    const error = failed(await run(code, { services: fakeServices(calls) }));
    expect(error.name).toBe('ServiceArgumentError');
    expect(calls).toEqual([]);
  });

  it('still sends dates (as their JSON text), nested plain objects and arrays', async () => {
    const calls: unknown[][] = [];
    const services = fakeServices(calls);
    services.blockchain.invokeRead = async (scriptHash, operation, args) =>
      void calls.push([scriptHash, operation, args]);
    const code = `module.exports = async ({ services }) =>
      services.blockchain.invokeRead('0xab', 'op', [{ type: 'Array', value: [new Date(0), Object.create(null)] }]);`;
    await run(code, { services });
    expect(calls).toEqual([['0xab', 'op', [{ type: 'Array', value: ['1970-01-01T00:00:00.000Z', {}] }]]]);
  });
});

describe('results and thrown values measured in the isolate', () => {
  it('fails a 60 MB result with ResultTooLargeError, the host receiving none of it', async () => {
    const outcome = await run(`module.exports = async () => 'x'.repeat(60 * ${mib});`, { memoryLimitMb: 256 });
    expect(failed(outcome)).toMatchObject({
      name: 'ResultTooLargeError',
      message: 'The result is at least 60.00 MiB as JSON; the limit is 1 MiB.',
    });
    const received = vi.mocked(decodeResult).mock.calls.map(([json]) => json?.length ?? 0);
    expect(Math.max(0, ...received)).toBeLessThanOrEqual(maxResultBytes);
  });

  it('fails a result whose toJSON throws a 60 MB message, the host receiving it cut', async () => {
    const code = `module.exports = async () => ({ toJSON() { throw new Error('x'.repeat(60 * ${mib})); } });`;
    const error = failed(await run(code, { memoryLimitMb: 256 }));
    expect(error.name).toBe('ResultNotSerializableError');
    expect(longestErrorFieldReceived()).toBeLessThanOrEqual(outputLimits.errorMessageBytes + 64);
  });

  it.each([
    ['a thrown 60 MB string', `throw 'x'.repeat(60 * ${mib});`],
    [
      'a thrown proxy whose trap throws 60 MB',
      `throw new Proxy({}, { getPrototypeOf() { throw 'x'.repeat(60 * ${mib}); } });`,
    ],
    ['a result proxy whose trap throws 60 MB', `return new Proxy({}, { get() { throw 'x'.repeat(60 * ${mib}); } });`],
  ])('fails a run with %s, the host receiving the error cut', async (_what, body) => {
    failed(await run(`module.exports = async () => { ${body} };`, { memoryLimitMb: 256 }));
    expect(longestErrorFieldReceived()).toBeLessThanOrEqual(outputLimits.errorStackBytes + 64);
  });

  it.each([
    ['throws a 60 MB string', `throw 'x'.repeat(60 * ${mib});`, 'Error'],
    ['throws an error of a 60 MB message', `throw new TypeError('x'.repeat(60 * ${mib}));`, 'TypeError'],
    ['completes with a 60 MB string', `module.exports = async () => 1; 'x'.repeat(60 * ${mib});`, undefined],
  ])('runs a script whose top level %s without the host copying it', async (_what, code, name) => {
    const { value: outcome, grownBytes } = await hostHeapGrowth(() => run(code, { memoryLimitMb: 256 }));
    if (name) expect(failed(outcome).name).toBe(name);
    else expect(outcome).toMatchObject({ status: 'completed', result: 1 });
    expect(longestErrorFieldReceived()).toBeLessThanOrEqual(outputLimits.errorStackBytes + 64);
    expect(grownBytes).toBeLessThan(50 * mib);
  });
});
