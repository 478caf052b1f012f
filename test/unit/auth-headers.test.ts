import { describe, expect, it } from 'vitest';
import { presentedKey } from '../../src/api/auth.ts';

describe('presentedKey', () => {
  it('reads a Bearer token or an X-API-Key header', () => {
    expect(presentedKey('Bearer nf_a', '')).toBe('nf_a');
    expect(presentedKey('bearer  nf_a ', '')).toBe('nf_a');
    expect(presentedKey('', 'nf_a')).toBe('nf_a');
  });

  it('accepts both headers when they name the same key', () => {
    expect(presentedKey('Bearer nf_a', 'nf_a')).toBe('nf_a');
  });

  it('presents no key when the two headers disagree', () => {
    expect(presentedKey('Bearer nf_a', 'nf_b')).toBeUndefined();
  });

  it('ignores other authorization schemes', () => {
    expect(presentedKey('Basic dXNlcjpwYXNz', '')).toBeUndefined();
  });
});
