import { describe, expect, it } from 'vitest';
import { outputLimits, truncateUtf8 } from '../../src/sandbox/output.ts';
import { resultOf, run } from '../support/sandbox.ts';

const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('sandbox logs', () => {
  it('records each level with its arguments formatted like console', async () => {
    const code = `module.exports = async ({ log }) => {
      log.debug('d', 1, true, null, undefined);
      log.info('object', { a: [1, 2] }, 10n);
      log.warn(() => 1);
      log.error(new TypeError('bad thing'));
    };`;
    const outcome = await run(code);
    expect(outcome.logs.map(({ level, message }) => [level, message.split('\n')[0]])).toEqual([
      ['debug', 'd 1 true null undefined'],
      ['info', 'object {"a":[1,2]} 10n'],
      ['warn', '[Function: (anonymous)]'],
      ['error', 'TypeError: bad thing'],
    ]);
    for (const line of outcome.logs) expect(line.timestamp).toMatch(isoMs);
  });

  it('keeps the logs of a run that fails', async () => {
    const outcome = await run(`module.exports = async ({ log }) => { log.info('before'); throw new Error('x'); };`);
    expect(outcome).toMatchObject({ status: 'failed', logs: [{ level: 'info', message: 'before' }] });
  });

  it('caps each line at 4 KiB of UTF-8', async () => {
    const outcome = await run(`module.exports = async ({ log }) => { log.info('é'.repeat(5000)); };`);
    expect(outcome.logs[0]?.message).toBe('é'.repeat(outputLimits.logLineBytes / 2));
  });

  it('keeps 1,000 lines, then one marker line', async () => {
    const outcome = await run(
      `module.exports = async ({ log }) => { for (let i = 0; i < 5000; i++) log.info('line ' + i); };`,
    );
    expect(outcome.logs).toHaveLength(outputLimits.logLines + 1);
    expect(outcome.logs[outputLimits.logLines - 1]?.message).toBe('line 999');
    expect(outcome.logs[outputLimits.logLines]).toMatchObject({
      level: 'warn',
      message: expect.stringMatching(/Log limit/),
    });
  });

  it('never splits a character when truncating', () => {
    expect(truncateUtf8('aé', 2)).toBe('a');
    expect(truncateUtf8('abc', 3)).toBe('abc');
  });
});

describe('sandbox result', () => {
  it('returns JSON-serializable results as data', async () => {
    expect(await resultOf('module.exports = async () => ({ n: 1, s: "é", list: [true, null] });')).toEqual({
      n: 1,
      s: 'é',
      list: [true, null],
    });
  });

  it('fails a 2 MiB result with ResultTooLargeError', async () => {
    const outcome = await run(`module.exports = async () => 'x'.repeat(2 * 1024 * 1024);`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'ResultTooLargeError' } });
    expect(outcome.status === 'failed' && outcome.error.message).toMatch(/limit is 1 MiB/);
  });

  it('accepts a result just under 1 MiB', async () => {
    const result = await resultOf(`module.exports = async () => 'x'.repeat(1024 * 1024 - 2);`);
    expect(result).toHaveLength(1024 * 1024 - 2);
  });

  it('fails a result that is not JSON-serializable', async () => {
    const outcome = await run(`module.exports = async () => { const a = {}; a.self = a; return a; };`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'ResultNotSerializableError' } });
  });
});

describe('sandbox errors', () => {
  it('reports a thrown error with the user frames only', async () => {
    const code = `function check(n) {\n  if (n < 0) throw new RangeError('n must be positive');\n}\nmodule.exports = async ({ params }) => check(params.n);`;
    const outcome = await run(code, { params: { n: -1 } });
    if (outcome.status !== 'failed') throw new Error('expected a failure');
    expect(outcome.error).toMatchObject({ name: 'RangeError', message: 'n must be positive' });
    const [header, ...frames] = outcome.error.stack.split('\n');
    expect(header).toBe('RangeError: n must be positive');
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^\s+at .*function\.js:\d+:\d+\)?$/);
    expect(frames[0]).toMatch(/at check \(function\.js:2:\d+\)/);
  });

  it('reports an error thrown at the top level of the code', async () => {
    const outcome = await run(`throw new Error('at load');`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'Error', message: 'at load' } });
    expect(outcome.status === 'failed' && outcome.error.stack).toBe('Error: at load\n    at function.js:1:7');
  });

  it('reports a thrown non-error value', async () => {
    const outcome = await run(`module.exports = async () => { throw 'plain string'; };`);
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'Error', message: 'plain string' } });
  });

  it('reports code that does not parse as a SyntaxError', async () => {
    const outcome = await run('module.exports = async () => {');
    expect(outcome).toMatchObject({ status: 'failed', error: { name: 'SyntaxError' } });
  });
});
