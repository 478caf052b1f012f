import { describe, expect, it } from 'vitest';
import { nestingDepth } from '../../src/json/json-depth.ts';

describe('nestingDepth', () => {
  it.each([
    ['1', 0],
    ['"text"', 0],
    ['[]', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['[[],[[]],[]]', 3],
  ])('measures %s as %i', (text, depth) => {
    expect(nestingDepth(text)).toBe(depth);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestingDepth('{"a":"[[[{{{"}')).toBe(1);
    expect(nestingDepth('["\\"[[[", "\\\\", []]')).toBe(2);
  });

  it('measures a megabyte of brackets in one pass, without recursing', () => {
    const deep = '['.repeat(512 * 1024) + ']'.repeat(512 * 1024);
    const started = performance.now();
    expect(nestingDepth(deep)).toBe(512 * 1024);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
