import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { keyId } from './key-id.ts';

/** The master key that wraps new data keys, and older ones still accepted for unwrapping. */
export interface MasterKeys {
  current: Buffer;
  previous: Buffer[];
}

/** A value encrypted under its own data key, the data key wrapped by a master key. */
export interface Sealed {
  /** iv (12) | tag (16) | ciphertext */
  ciphertext: Uint8Array;
  /** iv (12) | tag (16) | encrypted data key (32) */
  wrappedKey: Uint8Array;
  masterKeyId: string;
}

export class MasterKeyMissingError extends Error {
  constructor(masterKeyId: string) {
    super(
      `a value is wrapped by master key ${masterKeyId}, which is neither NEOFLOW_MASTER_KEY nor in ` +
        'NEOFLOW_PREVIOUS_MASTER_KEYS: restore it there, then run `neoflow secrets rotate-master`',
    );
    this.name = 'MasterKeyMissingError';
  }
}

/**
 * Encrypts `plaintext` under a fresh AES-256-GCM data key. `context` (e.g. the secret id and
 * version) is authenticated, so a ciphertext moved to another row no longer decrypts.
 */
export function seal(plaintext: string, context: string, masters: MasterKeys): Sealed {
  const dataKey = randomBytes(32);
  return {
    ciphertext: encrypt(dataKey, Buffer.from(plaintext, 'utf8'), context),
    wrappedKey: encrypt(masters.current, dataKey, 'data-key'),
    masterKeyId: keyId(masters.current),
  };
}

export function open(sealed: Sealed, context: string, masters: MasterKeys): string {
  const dataKey = decrypt(findMaster(sealed.masterKeyId, masters), sealed.wrappedKey, 'data-key');
  return decrypt(dataKey, sealed.ciphertext, context).toString('utf8');
}

/** Throws as `open` would on a value wrapped by a master key not held (MasterKeyMissingError), opening nothing. */
export function assertMasterHeld(sealed: Sealed, masters: MasterKeys) {
  findMaster(sealed.masterKeyId, masters);
}

/** Re-wraps the data key under the current master key; the value itself is never decrypted. */
export function rewrap(sealed: Sealed, masters: MasterKeys): Sealed {
  const dataKey = decrypt(findMaster(sealed.masterKeyId, masters), sealed.wrappedKey, 'data-key');
  return {
    ciphertext: sealed.ciphertext,
    wrappedKey: encrypt(masters.current, dataKey, 'data-key'),
    masterKeyId: keyId(masters.current),
  };
}

function findMaster(id: string, masters: MasterKeys): Buffer {
  const key = [masters.current, ...masters.previous].find((candidate) => keyId(candidate) === id);
  if (!key) throw new MasterKeyMissingError(id);
  return key;
}

function encrypt(key: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function decrypt(key: Buffer, packed: Uint8Array, context: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, 12));
  decipher.setAAD(Buffer.from(context, 'utf8')).setAuthTag(packed.subarray(12, 28));
  return Buffer.concat([decipher.update(packed.subarray(28)), decipher.final()]);
}
