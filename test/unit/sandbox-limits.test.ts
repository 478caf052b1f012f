import { describe, expect, it } from 'vitest';
import { runInSandbox } from '../../src/sandbox/sandbox.ts';
import { fakeServices, resultOf, sandboxRequest } from '../support/sandbox.ts';

const timeoutLimitMs = 500;
// Enough for a loaded machine's event loop; an unstopped loop would run on for ever.
const graceMs = 2_000;

async function timed(code: string, overrides: Parameters<typeof sandboxRequest>[1] = {}) {
  const started = performance.now();
  const outcome = await runInSandbox(sandboxRequest(code, { timeoutMs: timeoutLimitMs, ...overrides }));
  return { outcome, elapsedMs: performance.now() - started };
}

describe('sandbox timeout (wall clock)', () => {
  it.each([
    ['a synchronous endless loop', 'module.exports = () => { while (true) {} };'],
    ['an endless loop after an await', 'module.exports = async () => { await null; while (true) {} };'],
    [
      'an endless loop after a host call',
      'module.exports = async ({ services }) => { await services.blockchain.getBlockCount(); for (;;) {} };',
    ],
    ['an endless loop at the top level', 'while (true) {}'],
    ['a promise that never settles', 'module.exports = () => new Promise(() => {});'],
  ])('stops %s within timeout + 2 s with TimeoutError', async (_case, code) => {
    const { outcome, elapsedMs } = await timed(code);
    console.log(`sandbox timeout: ${_case} stopped after ${elapsedMs.toFixed(0)} ms (timeout ${timeoutLimitMs} ms)`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'TimeoutError' } });
    expect(elapsedMs).toBeGreaterThanOrEqual(timeoutLimitMs - 1);
    expect(elapsedMs).toBeLessThan(timeoutLimitMs + graceMs);
  });

  it('times out while a host call is pending, and ignores its late answer', async () => {
    const services = fakeServices();
    const late = Promise.withResolvers<void>();
    services.blockchain.getBlockCount = () =>
      new Promise((resolve) =>
        setTimeout(() => {
          resolve(1);
          late.resolve();
        }, timeoutLimitMs + 100),
      );
    const { outcome } = await timed('module.exports = ({ services }) => services.blockchain.getBlockCount();', {
      services,
    });
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'TimeoutError' } });
    // The answer reaches a disposed isolate: delivering it must neither throw nor reject unhandled
    // (vitest fails the file on either), and the outcome stays the timeout.
    await late.promise;
    await new Promise(setImmediate);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'TimeoutError' } });
  });

  it('does not delay another run while one loops', async () => {
    // The loop would run for 30 s, far past any load's delay of the quick run (a blocked one loses
    // the race within the test's time); once that has answered, the loop is cancelled. (With a 10 s
    // loop, a quick run that took 10 s on a loaded CI machine let the loop's deadline come first.)
    const cancel = new AbortController();
    const looping = timed('module.exports = () => { for (;;) {} };', { timeoutMs: 30_000, signal: cancel.signal });
    const quick = resultOf('module.exports = async () => "quick";');
    const first = await Promise.race([quick.then(() => 'quick'), looping.then(() => 'looping')]);
    expect(first).toBe('quick');
    expect(await quick).toBe('quick');
    cancel.abort();
    expect((await looping).outcome).toMatchObject({ error: { name: 'CancelledError' } });
  }, 40_000);

  it('keeps the logs written before the timeout', async () => {
    const { outcome } = await timed(
      `module.exports = async ({ log }) => { log.info('started'); await null; for (;;) {} };`,
    );
    expect(outcome.logs).toMatchObject([{ level: 'info', message: 'started' }]);
  });
});

describe('sandbox memory limit', () => {
  it('fails an allocation bomb with MemoryLimitError, and the next run works', { timeout: 30_000 }, async () => {
    const bomb = `module.exports = async () => { await null; const keep = []; for (;;) keep.push({ n: Math.random() }); };`;
    const outcome = await runInSandbox(sandboxRequest(bomb, { memoryLimitMb: 32, timeoutMs: 20_000 }));
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { name: 'MemoryLimitError', message: 'The function exceeded its memory limit of 32 MiB.' },
    });
    expect(await resultOf('module.exports = async () => "still alive";')).toBe('still alive');
  });

  it('defaults to 128 MiB: 64 MiB of live data fits, and fails under a 32 MiB limit', { timeout: 30_000 }, async () => {
    // Eight arrays of 2^20 doubles: 64 MiB that V8 really holds (repeated strings would be ropes).
    const code = `module.exports = async () => {
      const blocks = Array.from({ length: 8 }, (_, i) => new Array(1 << 20).fill(i + 0.5));
      return blocks.length;
    };`;
    expect(await resultOf(code, { timeoutMs: 20_000 })).toBe(8);
    const limited = await runInSandbox(sandboxRequest(code, { memoryLimitMb: 32, timeoutMs: 20_000 }));
    expect(limited).toMatchObject({ status: 'failed', error: { name: 'MemoryLimitError' } });
  });
});
