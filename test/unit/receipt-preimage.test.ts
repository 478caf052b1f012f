import { describe, expect, it } from 'vitest';
import { wallet } from '@cityofzion/neon-js';
import { receiptFieldsOf, type ReceiptSubject } from '../../src/receipts/receipt-claims.ts';
import { goldenPreimage, goldenPublicKey, goldenSignature, key, sha, subject } from '../support/golden-receipt.ts';
import { receiptKeyOf, receiptSignatureHolds, signReceipt } from '../../src/receipts/receipt-key.ts';
import {
  ReceiptLayoutError,
  receiptFields,
  receiptOffsets,
  receiptPreimage,
  receiptPreimageLength,
  type ReceiptFields,
} from '../../src/receipts/receipt-preimage.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const fields = receiptFieldsOf(subject, key.publicKey);
const preimage = receiptPreimage(fields);

describe('the receipt preimage', () => {
  it('fixed inputs give the golden preimage, 394 bytes at the documented offsets', () => {
    expect(hex(key.publicKey)).toBe(goldenPublicKey);
    expect(hex(preimage)).toBe(goldenPreimage);
    expect(receiptPreimageLength).toBe(394);
    expect(receiptOffsets).toEqual({
      tag: 0,
      networkMagic: 19,
      executionIdHash: 23,
      functionIdHash: 55,
      codeHash: 87,
      configHash: 119,
      inputHash: 151,
      status: 183,
      outcomeHash: 184,
      logsHash: 216,
      secretsReadHash: 248,
      hostCallsHash: 280,
      startedAt: 312,
      completedAt: 320,
      publicKey: 328,
      teeType: 361,
      evidenceHash: 362,
    });
  });

  it('its slices are what a contract reads: tag, magic LE, SHA-256 of the ids and code, status, times LE, key', () => {
    expect(preimage.subarray(0, 19).toString('latin1')).toBe('neoflow/receipt/v1\0');
    expect(hex(preimage.subarray(19, 23))).toBe('4e335435'); // 894710606 = 0x3554334e
    expect(hex(preimage.subarray(23, 55))).toBe(sha(subject.executionId));
    expect(hex(preimage.subarray(87, 119))).toBe(sha(subject.code));
    expect(hex(preimage.subarray(151, 183))).toBe(sha('{"x":21}'));
    expect(preimage[183]).toBe(1);
    expect(hex(preimage.subarray(184, 216))).toBe(sha('{"doubled":42}'));
    expect(preimage.readBigUInt64LE(320) - preimage.readBigUInt64LE(312)).toBe(125n);
    expect(hex(preimage.subarray(328, 361))).toBe(goldenPublicKey);
    expect(preimage[361]).toBe(0);
    expect(preimage.subarray(362).equals(Buffer.alloc(32))).toBe(true);
  });

  it('the golden signature and a fresh one verify with neon-js wallet.verify and here', () => {
    expect(wallet.verify(goldenPreimage, goldenSignature, goldenPublicKey)).toBe(true);
    const fresh = signReceipt(key, preimage);
    expect(fresh).toHaveLength(64);
    expect(wallet.verify(hex(preimage), hex(fresh), goldenPublicKey)).toBe(true);
    expect(receiptSignatureHolds(key.publicKey, preimage, Buffer.from(goldenSignature, 'hex'))).toBe(true);
  });

  it('decoding the preimage gives back every field', () => {
    expect(receiptFields(preimage)).toEqual(fields);
  });

  const changed: Record<keyof ReceiptSubject, Partial<ReceiptSubject>> = {
    networkMagic: { networkMagic: 860833102 },
    executionId: { executionId: 'exec_0123456789abcdefghijklmo' },
    functionId: { functionId: 'func_0123456789abcdefghijklmo' },
    code: { code: subject.code.replace('2', '3') },
    config: { config: { ...subject.config, timeout: 31 } },
    params: { params: { x: 22 } },
    status: { status: 'failed' },
    outcome: { outcome: { doubled: 43 } },
    logs: { logs: [] },
    secretsRead: { secretsRead: [{ name: 'API_KEY', version: 3 }] },
    hostCalls: { hostCalls: [] },
    startedAt: { startedAt: new Date(subject.startedAt.getTime() - 1) },
    completedAt: { completedAt: new Date(subject.completedAt.getTime() + 1) },
  };
  it.each(Object.entries(changed))('a receipt whose %s differs fails verification', (_name, change) => {
    const other = receiptPreimage(receiptFieldsOf({ ...subject, ...change }, key.publicKey));
    expect(other.equals(preimage)).toBe(false);
    expect(wallet.verify(hex(other), goldenSignature, goldenPublicKey)).toBe(false);
    expect(receiptSignatureHolds(key.publicKey, other, Buffer.from(goldenSignature, 'hex'))).toBe(false);
  });

  it('another key, a TEE type or evidence in the preimage fails verification too', () => {
    const variants: Partial<ReceiptFields>[] = [
      { publicKey: receiptKeyOf(sha('another key')).publicKey },
      { teeType: 1 },
      { evidenceHash: Buffer.alloc(32, 1) },
    ];
    for (const variant of variants) {
      const other = receiptPreimage({ ...fields, ...variant });
      expect(wallet.verify(hex(other), goldenSignature, goldenPublicKey)).toBe(false);
    }
  });

  it('one flipped bit anywhere in the preimage or the signature fails verification', () => {
    const signature = Buffer.from(goldenSignature, 'hex');
    for (let byte = 0; byte < preimage.length; byte += 7) {
      const flipped = Buffer.from(preimage);
      flipped[byte]! ^= 1 << (byte % 8);
      expect(receiptSignatureHolds(key.publicKey, flipped, signature)).toBe(false);
    }
    const flippedSignature = Buffer.from(signature);
    flippedSignature[10]! ^= 0x80;
    expect(receiptSignatureHolds(key.publicKey, preimage, flippedSignature)).toBe(false);
  });

  it('a preimage of another length, tag or status byte is refused, not misread', () => {
    expect(() => receiptFields(preimage.subarray(1))).toThrow(ReceiptLayoutError);
    const tag = Buffer.from(preimage);
    tag[18] = 0x31;
    expect(() => receiptFields(tag)).toThrow(ReceiptLayoutError);
    const status = Buffer.from(preimage);
    status[183] = 7;
    expect(() => receiptFields(status)).toThrow(ReceiptLayoutError);
    expect(() => receiptPreimage({ ...fields, codeHash: Buffer.alloc(31) })).toThrow(ReceiptLayoutError);
  });
});
