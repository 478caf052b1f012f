import { describe, expect, it } from 'vitest';
import { maskSecrets, minMaskedChars } from '../../src/secrets/mask.ts';

describe('maskSecrets', () => {
  it('replaces every occurrence of every value by its name', () => {
    const secrets = [{ name: 'TOKEN', value: 'abc123' }];
    expect(maskSecrets('token abc123, again abc123.', secrets)).toBe('token [secret:TOKEN], again [secret:TOKEN].');
  });

  it('masks the longer of two overlapping values whole', () => {
    const secrets = [
      { name: 'SHORT', value: 'pass' },
      { name: 'LONG', value: 'password1' },
    ];
    expect(maskSecrets('password1 pass', secrets)).toBe('[secret:LONG] [secret:SHORT]');
  });

  it('leaves text without secrets, and ignores empty values', () => {
    expect(maskSecrets('nothing here', [{ name: 'EMPTY', value: '' }])).toBe('nothing here');
  });
});

describe('maskSecrets: one bounded pass over the original text', () => {
  it('never matches a value inside a marker another value wrote', () => {
    const secrets = [
      { name: 'b'.repeat(128), value: 'aaaa' },
      { name: 'a'.repeat(128), value: 'bbbb' },
    ];
    expect(maskSecrets('aaaa bbbb', secrets)).toBe(`[secret:${'b'.repeat(128)}] [secret:${'a'.repeat(128)}]`);
  });

  it('masks the longest value that starts at a position, then goes on after it', () => {
    const secrets = [
      { name: 'A', value: 'abcd' },
      { name: 'B', value: 'abcdef' },
      { name: 'C', value: 'efgh' },
    ];
    expect(maskSecrets('xabcdefgh abcd efgh', secrets)).toBe('x[secret:B]gh [secret:A] [secret:C]');
  });

  it(`leaves values shorter than ${minMaskedChars} characters unmasked`, () => {
    const secrets = [
      { name: 'ONE', value: 'a' },
      { name: 'THREE', value: 'abc' },
      { name: 'FOUR', value: 'abcd' },
    ];
    expect(maskSecrets('a abc abcd', secrets)).toBe('a abc [secret:FOUR]');
  });

  it('stops writing at the cap, however many matches the text still holds', () => {
    const marker = `[secret:${'N'.repeat(128)}]`;
    const masked = maskSecrets('aaaa'.repeat(20_000), [{ name: 'N'.repeat(128), value: 'aaaa' }], 4097);
    expect(masked).toBe(marker.repeat(30).slice(0, 4097));
  });

  it('masks a value that ends past the cap when it starts before it', () => {
    expect(maskSecrets(`xy${'k'.repeat(100)}`, [{ name: 'K', value: 'k'.repeat(100) }], 5)).toBe('xy[se');
  });
});
