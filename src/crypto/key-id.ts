import { createHash } from 'node:crypto';

/**
 * Names a key without revealing it: the first 16 hex digits of its SHA-256. Sealed values carry it
 * so that rotation knows which key sealed them (payloads in Temporal, data keys in PostgreSQL).
 */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
