import { describe, expect, it } from 'vitest';
import { maskSecrets } from '../../src/secrets/mask.ts';

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
