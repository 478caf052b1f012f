import type { MasterKeys } from '../crypto/envelope.ts';
import { openLocalKey } from './local-key.ts';
import { openAwsKmsKey } from './backends/aws-kms.ts';
import { openPkcs11Key, Pkcs11TokenAbsentError } from './backends/pkcs11.ts';
import type { AwsKmsBackend, Pkcs11Backend, Signer } from './signer.entity.ts';
import { SignerKeyRefusedError, SignerUnavailableError, type SigningKey } from './signing-key.ts';

/** A remote key's type and reference: what a signer's row holds of it, and what a probe is given. */
type RemoteKeyRef = { type: 'aws-kms'; backend: AwsKmsBackend } | { type: 'pkcs11'; backend: Pkcs11Backend };

/** The worker's PKCS#11 module and its user's PIN (NEOFLOW_PKCS11_MODULE, NEOFLOW_PKCS11_PIN). */
export interface Pkcs11Module {
  path: string;
  pin: string;
}

export interface OpenKeyDeps {
  masterKeys: MasterKeys;
  /** Unset on a worker configured without one: its `pkcs11` keys are unavailable there. */
  pkcs11?: Pkcs11Module;
}

/**
 * Keys opened, per signer id, most recently used last. Opening costs an unwrap (a sealed key) or a
 * round trip to the backend (a remote key's public key) that every transaction would repeat; the
 * bound keeps a worker serving many accounts from holding every key it ever opened.
 */
const opened = new Map<string, Promise<SigningKey>>();
const mostOpened = 1000;

/**
 * The signer's key behind the signing port, on the worker: a `generated` or `import` key opened
 * from its seal, an `aws-kms` or `pkcs11` key through its backend (no remote private key enters
 * the process). Cached per signer id; an opening that fails is not kept, so the next call tries
 * again. Throws SignerUnavailableError (not now) or SignerKeyRefusedError (never) for the backend.
 */
export function openSigningKey(signer: Signer, deps: OpenKeyDeps): Promise<SigningKey> {
  const cached = opened.get(signer.id);
  opened.delete(signer.id);
  const opening = cached ?? openByType(signer, deps);
  opened.set(signer.id, opening);
  if (opened.size > mostOpened) opened.delete(opened.keys().next().value!);
  if (!cached) opening.catch(() => forgetSigningKey(signer.id, opening));
  return opening;
}

/**
 * Drops the signer's opened key (the one given, when given): after its key failed to sign, so the
 * next attempt opens it anew.
 */
export function forgetSigningKey(signerId: string, only?: Promise<SigningKey>) {
  if (only === undefined || opened.get(signerId) === only) opened.delete(signerId);
}

async function openByType(signer: Signer, deps: OpenKeyDeps): Promise<SigningKey> {
  if (signer.type === 'generated' || signer.type === 'import') {
    const { ciphertext, wrappedKey, masterKeyId } = signer;
    if (!ciphertext || !wrappedKey || !masterKeyId) {
      throw new SignerKeyRefusedError(`The ${signer.type} signer holds no sealed key.`, 'type');
    }
    return openLocalKey({ ciphertext, wrappedKey, masterKeyId }, signer.account.id, deps.masterKeys);
  }
  return openRemoteKey({ type: signer.type, backend: signer.backend } as RemoteKeyRef, deps.pkcs11).catch(
    (error: unknown) => {
      // Its token was there when the signer was accepted: absent now is an HSM offline, or a token
      // this worker's module has not listed since it started, so "not now". A key missing from a
      // token that is there stays refused: a destroyed object does not come back.
      if (error instanceof Pkcs11TokenAbsentError)
        throw new SignerUnavailableError(`${error.message} (its HSM offline, or not listed since the worker started)`);
      throw error;
    },
  );
}

/**
 * A remote key by its reference, uncached: what a signer's key is opened with, and what the probe
 * of a new signer opens (workflows/probe-signer.ts) before its row exists.
 */
export async function openRemoteKey(ref: RemoteKeyRef, pkcs11?: Pkcs11Module): Promise<SigningKey> {
  if (ref.type === 'aws-kms') return openAwsKmsKey(ref.backend);
  // A worker configured otherwise may have one: not reachable here, rather than refused.
  if (!pkcs11) throw new SignerUnavailableError('This worker has no PKCS#11 module (NEOFLOW_PKCS11_MODULE).');
  return openPkcs11Key(ref.backend, pkcs11);
}
