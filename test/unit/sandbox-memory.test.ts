import { describe, expect, it } from 'vitest';
import type { SandboxOutcome } from '../../src/sandbox/types.ts';
import { resultOf, run } from '../support/sandbox.ts';

const memoryLimitMb = 64;
const failed = (outcome: SandboxOutcome) => {
  if (outcome.status !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome.status)}`);
  return outcome.error;
};

/**
 * Each way of committing 384 MiB (six times the run's limit) that the isolate's memory limit does
 * not count fails inside the run, and the host's resident memory grows by far less than that.
 */
describe('memory counted whole: no backing store beyond the run limit', () => {
  it.each([
    ['a resizable ArrayBuffer', `new ArrayBuffer(0, { maxByteLength: 8 << 20 })`, 'b.resize(8 << 20)'],
    ['a growable SharedArrayBuffer', `new SharedArrayBuffer(0, { maxByteLength: 8 << 20 })`, 'b.grow(8 << 20)'],
    ['WebAssembly memory', `new WebAssembly.Memory({ initial: 128 })`, ''],
    [
      'a resizable buffer through the prototype chain',
      `new (Object.getPrototypeOf(new Uint8Array(1).buffer).constructor)(0, { maxByteLength: 8 << 20 })`,
      'b.resize(8 << 20)',
    ],
    [
      'a resizable buffer through a subclass',
      `new (class extends ArrayBuffer {})(0, { maxByteLength: 8 << 20 })`,
      'b.resize(8 << 20)',
    ],
    [
      'a resizable buffer through Reflect.construct',
      `Reflect.construct(new Uint8Array(1).buffer.constructor, [0, { maxByteLength: 8 << 20 }])`,
      'b.resize(8 << 20)',
    ],
  ])('refuses %s', async (_kind, make, grow) => {
    const rssBefore = process.memoryUsage().rss;
    const code = `module.exports = async () => {
      const kept = [];
      for (let i = 0; i < 48; i++) { const b = ${make}; ${grow}; new Uint8Array(b.buffer ?? b).fill(1); kept.push(b); }
      return kept.length;
    };`;
    const error = failed(await run(code, { memoryLimitMb }));
    expect(error.name).toMatch(/TypeError|ReferenceError|MemoryLimitError|RangeError/);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(2 * memoryLimitMb * 1024 * 1024);
  });

  it.each([
    ['heap', `kept.push(new Array(1 << 20).fill(i))`],
    ['fixed ArrayBuffers', `kept.push(new Uint8Array(new ArrayBuffer(8 << 20)).fill(1))`],
    ['fixed SharedArrayBuffers', `kept.push(new Uint8Array(new SharedArrayBuffer(8 << 20)).fill(1))`],
    ['ArrayBuffer.prototype.transfer', `kept.push(new ArrayBuffer(1).transfer(8 << 20))`],
  ])('stops a run that fills its limit with %s', async (_kind, allocate) => {
    const code = `module.exports = async () => { const kept = []; for (let i = 0; i < 48; i++) { ${allocate}; } return 1; };`;
    const error = failed(await run(code, { memoryLimitMb }));
    expect(error.name).toMatch(/MemoryLimitError|RangeError/);
  });

  it('keeps fixed buffers, typed arrays and Atomics working', async () => {
    const code = `module.exports = async () => {
      const shared = new Int32Array(new SharedArrayBuffer(16));
      Atomics.add(shared, 0, 5);
      const copy = new Uint8Array([1, 2, 3]).buffer.slice(1);
      return [shared[0], new Uint8Array(copy).join(','), new ArrayBuffer(4) instanceof ArrayBuffer, ArrayBuffer.isView(shared)];
    };`;
    expect(await resultOf(code)).toEqual([5, '2,3', true, true]);
  });

  it('gives no way back to the original constructor through stack frames', async () => {
    const code = `module.exports = async () => {
      const found = [];
      Error.prepareStackTrace = (_error, frames) => { for (const frame of frames) found.push(frame.getFunction()); return ''; };
      try { new ArrayBuffer(-1); } catch (error) { error.stack; }
      try { new ArrayBuffer(1, { maxByteLength: 1 }); } catch (error) { error.stack; }
      return found.filter((fn) => typeof fn === 'function').map((fn) => fn.name);
    };`;
    expect(await resultOf(code)).not.toContain('ArrayBuffer');
  });
});
