import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { wallet } from '@cityofzion/neon-js';
import { receiptFieldsOf, type ReceiptSubject } from '../../src/receipts/receipt-claims.ts';
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
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const key = receiptKeyOf(sha('neoflow receipt golden key'));

const subject: ReceiptSubject = {
  networkMagic: 894710606,
  executionId: 'exec_0123456789abcdefghijklmn',
  functionId: 'func_0123456789abcdefghijklmn',
  code: 'export default async (params: { x: number }) => ({ doubled: params.x * 2 });\n',
  config: {
    runtime: 'typescript',
    timeout: 30,
    environment: { MODE: 'prod' },
    secrets: ['API_KEY'],
    allowedHosts: ['api.example.com'],
    version: 3,
  },
  params: { x: 21 },
  status: 'completed',
  outcome: { doubled: 42 },
  logs: [{ level: 'info', message: 'doubling 21', timestamp: '2026-12-07T04:00:00.000Z' }],
  secretsRead: [{ name: 'API_KEY', version: 2 }],
  hostCalls: [{ method: 'getBlockCount', target: '', resultHash: sha('1234') }],
  startedAt: new Date('2026-12-07T04:00:00.000Z'),
  completedAt: new Date('2026-12-07T04:00:00.125Z'),
};

/** Computed once from `subject` and the key above; a change to the layout or a hash's input changes it. */
const goldenPublicKey = '02cbb6082c71aed8f764bb60dfe70b51827196914b3b81f02f40a197974dd3485f';
const goldenPreimage =
  '6e656f666c6f772f726563656970742f7631004e3354356c66900e77e685b52421b1817f756ff60bb462b44f2703a58f7324cbc47a0e4569fdf1a0135548c87451d853b587669d7f3f8f7de2b260adc3fe564770af50391a46fdcc1d9a951ff7ddbba89cce1af25736a2a7b52eb7bde09816b5892fc06657878279d3dee1b5f292e99e43a58ee5ad50a357c8ca12a3960d0b66389dc84c25b75005259488c2dd18a855c8126cbc7a27ea127ba157b4f052f2e48a30c4450127d4958085af3032ba46babb9e0b71690f9e2cc745ff7bb403a3d54e12152f8298b5c9e619767235c7e9ce1b6849a5c25caf9522e893ba88772fa6e9192cbe7af115045c13518ab15aa65e83ec1f4bd1dcd7129abec6b5dc92e53ca06d488e84a05338b7c87274479d77b1fdc4d67b70c3b61e28796102cc77f326245c1516f50092a84ea20100007d92a84ea201000002cbb6082c71aed8f764bb60dfe70b51827196914b3b81f02f40a197974dd3485f000000000000000000000000000000000000000000000000000000000000000000';
/** A signature of the golden preimage by the key, made once (ECDSA is randomised: a new one differs). */
const goldenSignature =
  '363939dc5b08991bdfd612b2814b3c0e633c671271bad7900ecdaed3f74263b230209b61f04b35e325eb132f628bc43f88d5f688496de7d57c6318202f3e7187';

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
