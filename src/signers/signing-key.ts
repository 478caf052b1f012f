import { runErrorName } from '../shared/outcomes.ts';

/**
 * The one signing port (issue 46): every custody type (a key sealed in the database, an AWS KMS
 * key, a PKCS#11 token key) answers the same two things, so building, pricing, budgeting and
 * relaying a transaction know nothing of where its key lives.
 */
export interface SigningKey {
  /** The compressed secp256r1 public key: 33 bytes, hex, as Neo's verification scripts hold it. */
  readonly publicKey: string;
  /**
   * An ECDSA secp256r1 signature of a SHA-256 digest (32 bytes): `r‖s`, 64 bytes, `s` in the
   * lower half of the group order (ecdsa.ts). The digest is what Neo's witness covers:
   * SHA-256(network magic ‖ transaction hash).
   */
  signDigest(digest: Uint8Array): Promise<Uint8Array>;
}

/**
 * The backend could not sign now (unreachable, throttled, its key disabled or its token absent):
 * nothing was signed, so nothing was sent, and a later attempt may succeed.
 */
export class SignerUnavailableError extends Error {
  override readonly name = runErrorName.SignerUnavailable;
}

/**
 * What a signer's description names cannot be a Neo signer, whatever is retried: the key is absent,
 * of another curve or type, or may not sign. `field` names the request's field at fault, for the
 * 400 that answers a create.
 */
export class SignerKeyRefusedError extends Error {
  override readonly name = 'SignerKeyRefused';
  readonly field: string;
  constructor(message: string, field: string) {
    super(message);
    this.field = field;
  }
}
