import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const prefix = 'nf_';

/** A new key: `nf_` and 32 random bytes in base64url. Shown once, stored only as its hash. */
export function generateKey(): string {
  return prefix + randomBytes(32).toString('base64url');
}

const sessionPrefix = 'nfs_';

/** A console session's token: `nfs_` and 32 random bytes in base64url, stored only as its hash. */
export function generateSessionToken(): string {
  return sessionPrefix + randomBytes(32).toString('base64url');
}

export function looksLikeSessionToken(value: string): boolean {
  return value.startsWith(sessionPrefix) && /^[A-Za-z0-9_-]{47}$/.test(value);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeKey(value: string): boolean {
  return value.startsWith(prefix) && /^[A-Za-z0-9_-]{46}$/.test(value);
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export function keyHint(key: string): string {
  return `${key.slice(0, 7)}…`;
}
