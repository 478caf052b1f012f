import { createPublicKey } from 'node:crypto';

/**
 * The shapes secp256r1 keys and signatures arrive in from a custody backend, turned into the ones
 * Neo uses: a KMS answers DER signatures and SPKI public keys, a PKCS#11 token raw `r‖s` and an
 * uncompressed point; Neo takes a 64-byte `r‖s` and a 33-byte compressed point.
 */

/** secp256r1's group order n: `s` and `n − s` both verify, and Neo's own tools emit the lower. */
const order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const halfOrder = order >> 1n;

/** A backend answered bytes that are not a P-256 signature or key: it signs wrongly, not "not now". */
export class MalformedKeyMaterialError extends Error {
  override readonly name = 'MalformedKeyMaterial';
}

const toBigInt = (bytes: Uint8Array) => (bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`));

function to32Bytes(value: bigint): Buffer {
  return Buffer.from(value.toString(16).padStart(64, '0'), 'hex');
}

/** `r‖s` with `s` in the lower half of the order; throws on a length other than 64 or a value out of range. */
export function lowS(rs: Uint8Array): Uint8Array {
  if (rs.length !== 64) throw new MalformedKeyMaterialError(`a signature of ${rs.length} bytes, not 64`);
  const r = toBigInt(rs.subarray(0, 32));
  const s = toBigInt(rs.subarray(32));
  if (r === 0n || r >= order || s === 0n || s >= order) {
    throw new MalformedKeyMaterialError('a signature whose r or s is out of range');
  }
  return Buffer.concat([to32Bytes(r), to32Bytes(s > halfOrder ? order - s : s)]);
}

/** Reads one DER INTEGER at `at`: its value and where the next element starts. */
function derInteger(der: Uint8Array, at: number): { value: bigint; next: number } {
  const length = der[at + 1];
  if (der[at] !== 0x02 || length === undefined || length === 0 || length > 33 || at + 2 + length > der.length) {
    throw new MalformedKeyMaterialError('a DER signature whose integer is malformed');
  }
  return { value: toBigInt(der.subarray(at + 2, at + 2 + length)), next: at + 2 + length };
}

/** The 64-byte low-s `r‖s` of a DER `SEQUENCE { INTEGER r, INTEGER s }` (what AWS KMS signs). */
export function rsFromDer(der: Uint8Array): Uint8Array {
  // A P-256 signature's sequence is at most 2 × (2 + 33) = 70 bytes: a one-byte length.
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) {
    throw new MalformedKeyMaterialError('a signature that is not one DER sequence');
  }
  const r = derInteger(der, 2);
  const s = derInteger(der, r.next);
  if (s.next !== der.length || r.value >= 1n << 256n || s.value >= 1n << 256n) {
    throw new MalformedKeyMaterialError('a DER signature with bytes past its integers');
  }
  return lowS(Buffer.concat([to32Bytes(r.value), to32Bytes(s.value)]));
}

/** The compressed form (hex) of an uncompressed point `04‖x‖y` (what a PKCS#11 token's CKA_EC_POINT holds). */
export function compressedPoint(uncompressed: Uint8Array): string {
  if (uncompressed.length !== 65 || uncompressed[0] !== 0x04) {
    throw new MalformedKeyMaterialError('a public key that is not an uncompressed P-256 point');
  }
  const y = uncompressed.subarray(33);
  const prefix = (y[31]! & 1) === 0 ? '02' : '03';
  return prefix + Buffer.from(uncompressed.subarray(1, 33)).toString('hex');
}

/**
 * The compressed public key (hex) of a DER SubjectPublicKeyInfo (what a KMS answers), checked to
 * be a P-256 key: Node's parser validates the point lies on the curve.
 */
export function compressedFromSpki(spki: Uint8Array): string {
  let jwk;
  try {
    jwk = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  } catch {
    throw new MalformedKeyMaterialError('a public key that is not a DER SubjectPublicKeyInfo');
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) {
    throw new MalformedKeyMaterialError(`a ${jwk.crv ?? jwk.kty} public key, not P-256`);
  }
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  return compressedPoint(Buffer.concat([Buffer.from([0x04]), x, y]));
}
