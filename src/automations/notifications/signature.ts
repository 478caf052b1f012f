import { createHmac } from 'node:crypto';

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
