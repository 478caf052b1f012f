import { createHash, timingSafeEqual } from 'node:crypto';

/** Hashing first gives equal lengths, so the comparison takes the same time whatever is sent. */
export const digest = (value: string) => createHash('sha256').update(value).digest();
export const sameSecret = (presented: string, expected: Buffer) => timingSafeEqual(digest(presented), expected);

/**
 * Whether an `Authorization` header presents the operator token (`NEOFLOW_OPERATOR_TOKEN`) as a
 * bearer token: what the codec endpoint and the metrics endpoints ask of an operator.
 */
export function operatorBearer(token: string): (authorization: string) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    return presented !== undefined && sameSecret(presented, expected);
  };
}
