import { createHash, timingSafeEqual } from 'node:crypto';
import { requireSetting, type Config } from '../config.ts';

/** Hashing first gives equal lengths, so the comparison takes the same time whatever is sent. */
export const digest = (value: string) => createHash('sha256').update(value).digest();
export const sameSecret = (presented: string, expected: Buffer) => timingSafeEqual(digest(presented), expected);

/**
 * Whether an `Authorization` header presents `token` as a bearer token: the operator token
 * (`NEOFLOW_OPERATOR_TOKEN`) for the codec endpoint, the metrics token for the metrics endpoints.
 */
export function operatorBearer(token: string): (authorization: string) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return presented !== undefined && sameSecret(presented, expected);
  };
}

/**
 * The token Prometheus presents for `/metrics`: `NEOFLOW_METRICS_TOKEN`, which opens nothing else,
 * or where it is not set the operator token, as before it existed (which also decodes payloads).
 */
export function metricsToken(secrets: Pick<Config['secrets'], 'metricsToken' | 'operatorToken'>): string {
  return secrets.metricsToken ?? requireSetting(secrets.operatorToken, 'NEOFLOW_OPERATOR_TOKEN');
}
