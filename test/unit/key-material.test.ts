import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, looksLikeKey, sameHash } from '../../src/auth/key-material.ts';

describe('API key material', () => {
  it('makes recognisable, distinct 32-byte keys', () => {
    const [a, b] = [generateKey(), generateKey()];
    expect(a).toMatch(/^nf_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(looksLikeKey(a)).toBe(true);
  });

  it('stores a SHA-256 hex digest, not the key', () => {
    const key = generateKey();
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).not.toContain(key.slice(3));
  });

  it('rejects strings that cannot be keys before any lookup', () => {
    expect(looksLikeKey('Bearer nf_x')).toBe(false);
    expect(looksLikeKey('sk_live_' + 'a'.repeat(43))).toBe(false);
  });

  it('compares hashes by value', () => {
    const hash = hashKey('nf_a');
    expect(sameHash(hash, hashKey('nf_a'))).toBe(true);
    expect(sameHash(hash, hashKey('nf_b'))).toBe(false);
    expect(sameHash(hash, 'abcd')).toBe(false);
  });
});
