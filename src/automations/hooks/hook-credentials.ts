import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebhookTrigger } from '../model/webhook-trigger.schemas.ts';

/**
 * A hook's credentials, pure: its unguessable path, its token (only its SHA-256 is stored), and
 * the check of an HMAC signature over the raw body. Every comparison is constant-time; the caller
 * runs both checks on every request, found or not (hooks.control.ts), so a request learns nothing
 * from the time its refusal takes.
 */

/** 24 random bytes: the path alone is as hard to guess as a key. */
export const newHookPath = () => `hk_${randomBytes(24).toString('base64url')}`;
/** Whether `path` has a hook path's shape: one that has not is no hook's, refused before any lookup. */
export const looksLikeHookPath = (path: string) => /^hk_[A-Za-z0-9_-]{32}$/.test(path);
export const newHookToken = () => `nfh_${randomBytes(32).toString('base64url')}`;
export const hookUrl = (path: string) => `/v1/hooks/${path}`;
export const hashToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/** The token a request presents (`Authorization: Bearer`, or `X-Neoflow-Token`); '' when none. */
export function presentedToken(authorization: string, tokenHeader: string): string {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? tokenHeader.trim();
}

/** Whether `token` hashes to `stored` (32 bytes), compared in constant time. */
export function tokenMatches(token: string, stored: Buffer): boolean {
  const presented = hashToken(token);
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

export type HmacAuth = Extract<WebhookTrigger['auth'], { type: 'hmac' }>;

/** Why a signed request is refused: no or a wrong signature, or a timestamp out of the tolerance. */
type SignatureRefusal = 'bad_signature' | 'stale_timestamp';

const defaultToleranceSeconds = 300;

/**
 * Checks the signature a request carries in `auth.header`: the hex HMAC (`sha256=` before it
 * optional) of the raw body with `key`, or of `<timestamp>.<body>` when the trigger names a
 * timestamp header, whose Unix seconds must then be within the tolerance of `nowSeconds`. The
 * HMAC is computed whatever the request holds: the work is the same for every refusal.
 */
export function signatureRefusal(
  auth: HmacAuth,
  key: string,
  raw: Buffer,
  header: (name: string) => string,
  nowSeconds: number,
): SignatureRefusal | null {
  const timestamp = auth.timestampHeader === undefined ? undefined : header(auth.timestampHeader).trim();
  const hmac = createHmac(auth.algorithm, key);
  if (timestamp !== undefined) hmac.update(`${timestamp}.`, 'utf8');
  const expected = hmac.update(raw).digest();
  const presented = signatureBytes(header(auth.header), auth.algorithm, expected.length);
  const signed = presented !== undefined && timingSafeEqual(presented, expected);
  if (!signed) return 'bad_signature';
  if (timestamp === undefined) return null;
  const tolerance = auth.toleranceSeconds ?? defaultToleranceSeconds;
  const sentAt = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  return Math.abs(nowSeconds - sentAt) <= tolerance ? null : 'stale_timestamp';
}

/** The signature's bytes, if the header holds `length` bytes of hex (after `<algorithm>=`). */
function signatureBytes(value: string, algorithm: string, length: number): Buffer | undefined {
  const trimmed = value.trim();
  const hex = trimmed.startsWith(`${algorithm}=`) ? trimmed.slice(algorithm.length + 1) : trimmed;
  return hex.length === length * 2 && /^[0-9a-fA-F]+$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}
