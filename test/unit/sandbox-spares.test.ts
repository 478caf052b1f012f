import { afterEach, describe, expect, it } from 'vitest';
import type { IsolateSource, PreparedIsolate } from '../../src/sandbox/prepared-isolate.ts';
import { runInSandbox } from '../../src/sandbox/sandbox.ts';
import { SpareIsolates } from '../../src/sandbox/spare-isolates.ts';
import { until } from '../support/polling.ts';
import { sandboxRequest } from '../support/sandbox.ts';

/** The spares, with a record of every isolate they handed out. */
function recorded(spares: SpareIsolates) {
  const taken: PreparedIsolate[] = [];
  const source: IsolateSource = {
    take: async (memoryLimitMb) => {
      const prepared = await spares.take(memoryLimitMb);
      taken.push(prepared);
      return prepared;
    },
    replenish: () => spares.replenish(),
  };
  return { source, taken };
}

/** The spares ready once filling has settled (at most 10 s). */
const spareCount = (spares: SpareIsolates) =>
  until(
    async () => spares.ready,
    (ready) => ready === 2,
    10_000,
    5,
  );

describe('spare isolates', () => {
  let spares: SpareIsolates;
  afterEach(() => spares.dispose());

  it('prepares spares only when a run has ended, and each run takes one that is disposed when it ends', async () => {
    spares = new SpareIsolates(128, 2);
    expect(spares.ready).toBe(0);
    const { source, taken } = recorded(spares);
    const first = await runInSandbox(sandboxRequest('module.exports = async () => 1'), source);
    expect(first.status).toBe('completed');
    expect(spares.ready).toBe(0);
    source.replenish();
    expect(await spareCount(spares)).toBe(2);
    const second = await runInSandbox(sandboxRequest('module.exports = async () => 2'), source);
    expect(second).toMatchObject({ status: 'completed', result: 2 });
    expect(taken).toHaveLength(2);
    expect(taken[0]?.isolate).not.toBe(taken[1]?.isolate);
    expect(taken.every((prepared) => prepared.isolate.isDisposed)).toBe(true);
  });

  it('gives a run nothing of an earlier run: globals and prototypes it changed are gone', async () => {
    spares = new SpareIsolates(128, 2);
    const polluter = `module.exports = async () => {
      globalThis.leaked = 'secret';
      Object.prototype.polluted = true;
      return 'done';
    }`;
    await runInSandbox(sandboxRequest(polluter), spares);
    spares.replenish();
    expect(await spareCount(spares)).toBe(2);
    const reader = 'module.exports = async () => [typeof leaked, ({}).polluted === undefined]';
    const outcome = await runInSandbox(sandboxRequest(reader), spares);
    expect(outcome).toMatchObject({ status: 'completed', result: ['undefined', true] });
  });

  it('gives a run from a spare the same runtime as a fresh one (WebAssembly and resizable buffers removed)', async () => {
    spares = new SpareIsolates(128, 2);
    await runInSandbox(sandboxRequest('module.exports = async () => 0'), spares);
    spares.replenish();
    expect(await spareCount(spares)).toBe(2);
    const code = `module.exports = async (c) => [typeof WebAssembly, c.params.n, c.execution.functionId]`;
    const outcome = await runInSandbox(sandboxRequest(code, { params: { n: 7 } }), spares);
    expect(outcome).toMatchObject({ status: 'completed', result: ['undefined', 7, 'func_test'] });
  });

  it('holds a run to its own memory limit when it differs from the spares', async () => {
    spares = new SpareIsolates(512, 1);
    const bomb = 'module.exports = async () => { const a = []; for (;;) a.push(new Array(1e5).fill(1)); }';
    const outcome = await runInSandbox(sandboxRequest(bomb, { memoryLimitMb: 32, timeoutMs: 20_000 }), spares);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'MemoryLimitError' } });
    expect(outcome.status === 'failed' && outcome.error.message).toContain('32 MiB');
  });

  it('keeps no spare once disposed, and a later run still gets a fresh isolate', async () => {
    spares = new SpareIsolates(128, 2);
    await runInSandbox(sandboxRequest('module.exports = async () => 0'), spares);
    spares.replenish();
    expect(await spareCount(spares)).toBe(2);
    spares.dispose();
    spares.replenish();
    expect(spares.ready).toBe(0);
    const outcome = await runInSandbox(sandboxRequest('module.exports = async () => 3'), spares);
    expect(outcome).toMatchObject({ status: 'completed', result: 3 });
    expect(spares.ready).toBe(0);
  });
});
