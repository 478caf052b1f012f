import { u } from '@cityofzion/neon-js';

const curve = u.getCurve(u.EllipticCurvePreset.SECP256R1);

/**
 * Whether `signature` (64 bytes, `r‖s`) of the SHA-256 `digest` verifies against `publicKey`
 * (compressed hex): what a Neo node checks of a witness. False for a malformed one too.
 */
export function signatureVerifies(digest: Uint8Array, signature: Uint8Array, publicKey: string): boolean {
  if (signature.length !== 64) return false;
  const hex = Buffer.from(signature).toString('hex');
  try {
    return curve.verify(Buffer.from(digest).toString('hex'), { r: hex.slice(0, 64), s: hex.slice(64) }, publicKey);
  } catch {
    return false;
  }
}
