import { u, wallet } from '@cityofzion/neon-js';
import { open, type MasterKeys, type Sealed } from '../crypto/envelope.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { lowS } from './ecdsa.ts';
import type { SigningKey } from './signing-key.ts';

const curve = u.getCurve(u.EllipticCurvePreset.SECP256R1);

/**
 * A key held in this process behind the signing port: a `generated` or `import` signer's, or a
 * test's. `privateKey` is a WIF or 64 hex digits (`0x` allowed); it stays in this closure only.
 */
export function localSigningKey(privateKey: string): SigningKey {
  const account = new wallet.Account(privateKey.replace(/^0x/i, ''));
  const secret = account.privateKey;
  return {
    publicKey: account.publicKey,
    async signDigest(digest) {
      if (digest.length !== 32) throw new RangeError(`a digest of ${digest.length} bytes, not 32`);
      // neon-core's curve signs the digest as given (its `wallet.sign` hashes a message first).
      const { r, s } = curve.sign(Buffer.from(digest).toString('hex'), secret);
      return lowS(Buffer.from(r + s, 'hex'));
    },
  };
}

/**
 * Opens the sealed key of a `generated` or `import` signer of `accountId`: the seal is bound to
 * the account (sealContexts.signer), as the account's one signer's was, so a key sealed before
 * signers were several opens unchanged, and one copied into another account's row does not.
 */
export function openLocalKey(sealed: Sealed, accountId: string, masters: MasterKeys): SigningKey {
  return localSigningKey(open(sealed, sealContexts.signer(accountId), masters));
}
