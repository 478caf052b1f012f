import { describe, expect, it } from 'vitest';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { keyId } from '../../src/crypto/key-id.ts';
import { EncryptionCodec, encryptedEncoding } from '../../src/temporal/codec.ts';

const key = Buffer.alloc(32, 1);
const codec = new EncryptionCodec(key);
const canary = 'canary-4f1d9a plaintext';
const payload = (value: unknown) => defaultPayloadConverter.toPayload(value);
const metadataText = (sealed: Payload, field: string) => Buffer.from(sealed.metadata![field]!).toString();
const flipByte = (bytes: Uint8Array, at: number) => {
  const copy = Buffer.from(bytes);
  copy[at]! ^= 1;
  return copy;
};

describe('EncryptionCodec', () => {
  it('round-trips payloads: the opened payload converts back to the value', async () => {
    const values = [{ secret: canary, n: 1 }, 'text', null, [1, 2, 3]];
    const opened = await codec.decode(await codec.encode(values.map(payload)));
    expect(opened.map((one) => defaultPayloadConverter.fromPayload(one))).toEqual(values);
  });

  it('marks sealed payloads as encrypted and names the key by an id derived from it', async () => {
    const [sealed] = await codec.encode([payload(canary)]);
    expect(metadataText(sealed!, 'encoding')).toBe(encryptedEncoding);
    expect(metadataText(sealed!, 'encryption-key-id')).toBe(keyId(key));
    expect(keyId(key)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyId(Buffer.alloc(32, 2))).not.toBe(keyId(key));
  });

  it('never holds the plaintext, or the original metadata, in the sealed bytes', async () => {
    const [sealed] = await codec.encode([payload({ secret: canary })]);
    const bytes = Buffer.concat([sealed!.data!, ...Object.values(sealed!.metadata!)]);
    expect(bytes.includes(canary)).toBe(false);
    expect(bytes.includes('json/plain')).toBe(false);
  });

  it('uses a fresh IV for every payload, so equal values seal differently', async () => {
    const [first, second] = await codec.encode([payload(canary), payload(canary)]);
    expect(Buffer.from(first!.data!).equals(Buffer.from(second!.data!))).toBe(false);
    expect(Buffer.from(first!.data!).subarray(0, 12).equals(Buffer.from(second!.data!).subarray(0, 12))).toBe(false);
  });

  it('refuses a payload whose ciphertext, IV or tag was altered', async () => {
    const [sealed] = await codec.encode([payload(canary)]);
    const length = sealed!.data!.length;
    for (const at of [0, 12, length - 1]) {
      await expect(codec.decode([{ ...sealed!, data: flipByte(sealed!.data!, at) }])).rejects.toThrow();
    }
  });

  it('refuses a payload whose key id was swapped, even to the right key', async () => {
    const other = new EncryptionCodec(Buffer.alloc(32, 2));
    const [sealed] = await other.encode([payload(canary)]);
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, 'encryption-key-id': Buffer.from(keyId(key)) },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow();
  });

  it('refuses a payload sealed with another key, naming the unknown key id', async () => {
    const [sealed] = await new EncryptionCodec(Buffer.alloc(32, 2)).encode([payload(canary)]);
    await expect(codec.decode([sealed!])).rejects.toThrow(/unknown key id/);
  });

  it('opens what a previous key sealed during a rotation, and seals anew under the current key only', async () => {
    const previous = Buffer.alloc(32, 2);
    const [old] = await new EncryptionCodec(previous).encode([payload(canary)]);
    const rotating = new EncryptionCodec(key, [previous]);
    const value = (opened: Payload[]) => defaultPayloadConverter.fromPayload(opened[0]!);
    expect(value(await rotating.decode([old!]))).toBe(canary);
    expect(rotating.sealedUnderPreviousKey(old!)).toBe(true);
    const [resealed] = await rotating.encode([payload(canary)]);
    expect(rotating.sealedUnderPreviousKey(resealed!)).toBe(false);
    // The current key alone (the rotation over) opens it.
    expect(value(await codec.decode([resealed!]))).toBe(canary);
    await expect(codec.decode([old!])).rejects.toThrow(/unknown key id/);
  });

  it('refuses a truncated payload', async () => {
    const [sealed] = await codec.encode([payload(canary)]);
    await expect(codec.decode([{ ...sealed!, data: sealed!.data!.subarray(0, 20) }])).rejects.toThrow(/truncated/);
  });

  it('passes payloads that are not sealed through unchanged', async () => {
    const plain = payload({ written: 'before encryption' });
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('accepts only a 32-byte key', () => {
    expect(() => new EncryptionCodec(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});
