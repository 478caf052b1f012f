import { ECDH, createECDH, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { keyId } from '../crypto/key-id.ts';
import { compressedPoint, lowS } from '../signers/ecdsa.ts';

/**
 * The deployment's receipt key: a secp256r1 key that signs receipts and nothing else (never a
 * tenant's signer, never the operator's wallet), so that a receipt can never pass for a
 * transaction's signature and a transaction's key can never sign a receipt. NEOFLOW_RECEIPT_KEY
 * holds its private scalar as 64 hex digits (`neoflow receipts key` makes one).
 */
export interface ReceiptKey {
  /** The first 16 hex digits of SHA-256 of the compressed public key, as /v1/receipt-keys lists it. */
  id: string;
  /** Compressed, 33 bytes: what a receipt carries and a contract registers. */
  publicKey: Buffer;
  privateKey: KeyObject;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

export const receiptKeyId = (publicKey: Buffer) => keyId(publicKey);

/** Throws when `hex` is not a private scalar of the curve (zero, at or above its order). */
export function receiptKeyOf(hex: string): ReceiptKey {
  const d = Buffer.from(hex, 'hex');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const uncompressed = ecdh.getPublicKey();
  const privateKey = createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: base64url(d),
      x: base64url(uncompressed.subarray(1, 33)),
      y: base64url(uncompressed.subarray(33)),
    },
    format: 'jwk',
  });
  const publicKey = Buffer.from(compressedPoint(uncompressed), 'hex');
  return { id: receiptKeyId(publicKey), publicKey, privateKey };
}

// Made beside the variable's format, where `neoflow up`'s dev secrets make one too.
export { newReceiptPrivateKey } from '../receipt-settings.ts';

/** ECDSA over SHA-256 of the preimage: 64 bytes `r‖s`, low s, what CryptoLib.verifyWithECDsa takes. */
export function signReceipt(key: ReceiptKey, preimage: Uint8Array): Buffer {
  return Buffer.from(lowS(sign('sha256', preimage, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })));
}

/** Whether `signature` (64 bytes `r‖s`) is the key's over `preimage`; a malformed key or signature is false. */
export function receiptSignatureHolds(publicKey: Uint8Array, preimage: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    const uncompressed = ECDH.convertKey(Buffer.from(publicKey), 'prime256v1', undefined, undefined, 'uncompressed');
    const point = Buffer.from(uncompressed as Buffer);
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) },
      format: 'jwk',
    });
    return verify('sha256', preimage, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}
