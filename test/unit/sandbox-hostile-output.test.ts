import { describe, expect, it } from 'vitest';
import { outputLimits } from '../../src/sandbox/output.ts';
import type { SandboxOutcome } from '../../src/sandbox/types.ts';
import { fakeServices, resultOf, run } from '../support/sandbox.ts';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const failed = (outcome: SandboxOutcome) => {
  if (outcome.status !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
};

// 40 characters that appear nowhere else: any 8 of them in a row is a fragment of the secret.
const secret = { name: 'TOKEN', value: 'sk_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0' };
const fragments = (value: string) => Array.from({ length: value.length - 7 }, (_, at) => value.slice(at, at + 8));
const expectNoFragment = (text: string) => {
  for (const fragment of fragments(secret.value)) expect(text).not.toContain(fragment);
};

describe('masking before cutting: no part of a granted secret leaves the sandbox', () => {
  it.each([4070, 4080, 4090, 4095])('masks a secret logged across the 4 KiB cut (starting at byte %i)', async (at) => {
    const code = `module.exports = async ({ log, secrets }) => { log.info('a'.repeat(${at}) + secrets.TOKEN + 'tail'); };`;
    const outcome = await run(code, { secrets: [secret] });
    const [line] = outcome.logs;
    expect(bytes(line!.message)).toBeLessThanOrEqual(outputLimits.logLineBytes);
    expectNoFragment(line!.message);
  });

  it('masks a secret longer than a log line whole', async () => {
    const long = { name: 'PEM', value: 'k'.repeat(6000) };
    const outcome = await run(`module.exports = async ({ log, secrets }) => { log.info('key: ' + secrets.PEM); };`, {
      secrets: [long],
    });
    expect(outcome.logs[0]!.message).toBe('key: [secret:PEM]');
  });

  it('masks the name, message and stack of an error, also across their cuts', async () => {
    const code = `module.exports = async ({ secrets }) => {
      const error = new Error('m'.repeat(${outputLimits.errorMessageBytes - 10}) + secrets.TOKEN);
      error.name = 'Leak' + secrets.TOKEN;
      throw error;
    };`;
    const error = failed(await run(code, { secrets: [secret] }));
    expect(error.name).toBe('Leak[secret:TOKEN]');
    for (const field of [error.name, error.message, error.stack]) expectNoFragment(field);
  });

  it('masks a thrown non-error value', async () => {
    const error = failed(
      await run(`module.exports = async ({ secrets }) => { throw { toString: () => 'x' + secrets.TOKEN }; };`, {
        secrets: [secret],
      }),
    );
    expect(error.message).toBe('x[secret:TOKEN]');
  });
});

describe('caps on every text the code sends out', () => {
  it('cuts a 10 MiB thrown error to the caps, name, message and stack alike', async () => {
    const code = `module.exports = async () => {
      const error = new Error('e'.repeat(10 * 1024 * 1024));
      error.name = 'N'.repeat(1024 * 1024);
      throw error;
    };`;
    const error = failed(await run(code));
    expect(bytes(error.name)).toBe(outputLimits.errorNameBytes);
    expect(bytes(error.message)).toBe(outputLimits.errorMessageBytes);
    expect(bytes(error.stack)).toBeLessThanOrEqual(outputLimits.errorStackBytes);
  });

  it('reports a thrown value that cannot even be printed', async () => {
    const error = failed(
      await run(`module.exports = async () => { throw { toString() { throw new Error('no'); } }; };`),
    );
    expect(error).toMatchObject({ name: 'Error', message: 'a value that cannot be printed' });
  });

  it('reports an error whose fields throw when read', async () => {
    const code = `module.exports = async () => {
      const error = new Error('kept');
      Object.defineProperty(error, 'name', { get() { throw new Error('no'); } });
      throw error;
    };`;
    expect(failed(await run(code))).toMatchObject({ name: 'Error', message: 'kept' });
  });

  it.each([
    ['nested 5,000 levels deep', `let v = 1; for (let i = 0; i < 5000; i++) v = [v]; return v;`],
    ['nested 65 levels deep', `let v = {}; for (let i = 0; i < 65; i++) v = { v }; return v;`],
    ['cyclic', `const a = {}; a.self = a; return a;`],
  ])('fails a result %s as ResultNotSerializableError', async (_what, body) => {
    const error = failed(await run(`module.exports = async () => { ${body} };`));
    expect(error.name).toBe('ResultNotSerializableError');
  });

  it('keeps a result nested 64 levels deep', async () => {
    const result = await resultOf(
      `module.exports = async () => { let v = 1; for (let i = 0; i < 63; i++) v = [v]; return v; };`,
    );
    expect(JSON.stringify(result)).toBe(`${'['.repeat(63)}1${']'.repeat(63)}`);
  });
});

describe('text that always stores: lone surrogates from user code become U+FFFD', () => {
  it('in log lines, error fields, and result strings and keys', async () => {
    const logged = await run(
      `module.exports = async ({ log }) => { log.info('a\\ud800b'); return { ['k\\udc00']: 'v\\ud800' }; };`,
    );
    expect(logged.logs[0]!.message).toBe('a\uFFFDb');
    expect(logged.status === 'completed' && logged.result).toEqual({ 'k\uFFFD': 'v\uFFFD' });
    const error = failed(
      await run(`module.exports = async () => { const e = new Error('m\\udfff'); e.name = 'N\\ud800'; throw e; };`),
    );
    expect(error).toMatchObject({ name: 'N\uFFFD', message: 'm\uFFFD' });
    expect(error.stack.isWellFormed()).toBe(true);
  });

  it('keeps surrogate pairs (emoji) as they are', async () => {
    expect(await resultOf(`module.exports = async () => '😀';`)).toBe('😀');
  });
});

describe('host calls bounded before the host decodes anything', () => {
  it.each([
    ['getBalance(1 MiB address)', `services.blockchain.getBalance('N'.repeat(1024 * 1024), 'GAS')`],
    ['getBalance(24,000-character address)', `services.blockchain.getBalance('N'.repeat(24000), 'GAS')`],
    ['invokeRead(long script hash)', `services.blockchain.invokeRead('0x' + 'a'.repeat(1000), 'symbol', [])`],
    [
      'invokeRead(1 MiB of arguments)',
      `services.blockchain.invokeRead('0x' + 'a'.repeat(40), 'x', ['a'.repeat(1024 * 1024)])`,
    ],
    ['getBalance(non-string address)', `services.blockchain.getBalance(42, 'GAS')`],
  ])('refuses %s with a clear error, never calling the chain', async (_what, call) => {
    const calls: unknown[][] = [];
    const outcome = await run(`module.exports = async ({ services }) => ${call};`, { services: fakeServices(calls) });
    expect(failed(outcome).message).toMatch(/longer than|exceed|must be a string/);
    expect(calls).toEqual([]);
  });

  it('still passes an address of normal length', async () => {
    const calls: unknown[][] = [];
    await run(
      `module.exports = async ({ services }) => services.blockchain.getBalance('NZNovTTmhZ1Xvp5RdYqL7Ka5jzS4ZTmVkZ', 'GAS');`,
      {
        services: fakeServices(calls),
      },
    );
    expect(calls).toEqual([['getBalance', 'NZNovTTmhZ1Xvp5RdYqL7Ka5jzS4ZTmVkZ', 'GAS']]);
  });
});
