import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyId } from '../../src/crypto/key-id.ts';
import { MasterKeyMissingError, open, rewrap, seal } from '../../src/crypto/envelope.ts';

const masters = () => ({ current: randomBytes(32), previous: [] as Buffer[] });

describe('envelope encryption', () => {
  it('round-trips a value and never stores it in clear', () => {
    const keys = masters();
    const sealed = seal('hunter2-très-secret', 'sec_1:1', keys);
    expect(open(sealed, 'sec_1:1', keys)).toBe('hunter2-très-secret');
    expect(Buffer.from(sealed.ciphertext).toString('latin1')).not.toContain('hunter2');
    expect(sealed.masterKeyId).toBe(keyId(keys.current));
  });

  it('uses a fresh data key and iv for every value', () => {
    const keys = masters();
    const [a, b] = [seal('same', 'c', keys), seal('same', 'c', keys)];
    expect(Buffer.from(a.ciphertext)).not.toEqual(Buffer.from(b.ciphertext));
    expect(Buffer.from(a.wrappedKey)).not.toEqual(Buffer.from(b.wrappedKey));
  });

  it('refuses a value moved to another secret or version', () => {
    const keys = masters();
    expect(() => open(seal('v', 'sec_1:1', keys), 'sec_2:1', keys)).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const keys = masters();
    const sealed = seal('value', 'c', keys);
    sealed.ciphertext[sealed.ciphertext.length - 1]! ^= 1;
    expect(() => open(sealed, 'c', keys)).toThrow();
  });

  it('re-wraps under a new master key, after which the old key is not needed', () => {
    const old = masters();
    const sealed = seal('value', 'c', old);
    const rotated = { current: randomBytes(32), previous: [old.current] };
    const rewrapped = rewrap(sealed, rotated);
    expect(rewrapped.ciphertext).toEqual(sealed.ciphertext);
    expect(open(rewrapped, 'c', { current: rotated.current, previous: [] })).toBe('value');
  });

  it('names the missing master key rather than failing obscurely', () => {
    const sealed = seal('value', 'c', masters());
    expect(() => open(sealed, 'c', masters())).toThrow(MasterKeyMissingError);
  });
});
