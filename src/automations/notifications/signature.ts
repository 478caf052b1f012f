import { createHmac } from 'node:crypto';
import type { OutgoingPost } from './post-json.ts';

/**
 * `Neoflow-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed by the value of
 * the secret the webhook names (Stripe's scheme): the receiver checks the body came from us, and
 * refuses an old `t` to stop a replay.
 */
export function signatureHeader(secret: string, body: string, now = Date.now()): string {
  const t = Math.floor(now / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/**
 * A webhook's POST: the tenant's headers, then ours, which they cannot override: the delivery id
 * (the same on every attempt) and a fresh signature of the body.
 */
export function signedPost(
  target: { url: string; headers?: Record<string, string> },
  deliveryId: string,
  body: string,
  secret: string,
  extraHeaders: Record<string, string> = {},
): OutgoingPost {
  const headers = {
    ...target.headers,
    ...extraHeaders,
    'Neoflow-Delivery': deliveryId,
    'Neoflow-Signature': signatureHeader(secret, body),
  };
  return { url: target.url, headers, body };
}
