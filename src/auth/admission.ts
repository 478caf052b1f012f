import type { EntityManager } from '@mikro-orm/postgresql';
import { decide, type Decision } from '../ratelimit/decision.ts';
import { storedRate, type Rate } from '../ratelimit/rate.ts';
import { admissionRow, sessionAdmissionRow, type AdmissionRow, type OwnedRead } from './api-key.sql.ts';
import { hashKey, looksLikeKey, looksLikeSessionToken, sameHash } from './key-material.ts';

/** Who calls: the key a request presented (its id, name and role), and its account. */
export interface Caller {
  accountId: string;
  keyId: string;
  keyName: string | null;
  role: string | null;
  scopes: readonly string[];
  /** The console session that presented the key, when one did (src/auth/console-session.ts). */
  sessionId?: string;
}

/** A request let in by its key: who calls, at which rate (its own or the default), and what its bucket said. */
interface Admission {
  caller: Caller;
  rate: Rate;
  decision: Decision;
  /** The row `alongside` asked for, as JSON; null when the key's account has no such row. */
  owned?: Record<string, unknown> | null;
}

/**
 * Null for a malformed, unknown or revoked key (no token is taken for those). `alongside` reads a
 * row of the key's account in the same statement, so that a route that needs it first (an invoke,
 * its function) needs no round trip of its own.
 */
export async function admit(
  em: EntityManager,
  presented: string,
  defaultRate: Rate,
  alongside?: OwnedRead,
): Promise<Admission | null> {
  if (!looksLikeKey(presented)) return null;
  const hash = hashKey(presented);
  const row = await admissionRow(em, hash, defaultRate, alongside);
  if (!row || !sameHash(row.hash, hash)) return null;
  return { ...admissionOf(row, defaultRate), ...(alongside && { owned: row.owned ?? null }) };
}

/**
 * The key of a console session's token, admitted exactly as that key would be (its scopes, its
 * bucket); null for a malformed, unknown, idle, ended or revoked-key session.
 */
export async function admitSession(
  em: EntityManager,
  token: string,
  idleSeconds: number,
  defaultRate: Rate,
): Promise<Admission | null> {
  if (!looksLikeSessionToken(token)) return null;
  const hash = hashKey(token);
  const row = await sessionAdmissionRow(em, hash, idleSeconds, defaultRate);
  if (!row?.session_id || !sameHash(row.hash, hash)) return null;
  const admission = admissionOf(row, defaultRate);
  return { ...admission, caller: { ...admission.caller, sessionId: row.session_id } };
}

/** The caller and its bucket's decision at the key's own rate (`--rate`) or the default. */
function admissionOf(row: AdmissionRow, defaultRate: Rate): Admission {
  const rate = storedRate(row.rate_requests, row.rate_window_seconds) ?? defaultRate;
  return {
    caller: { accountId: row.account_id, keyId: row.id, keyName: row.name, role: row.role, scopes: row.scopes },
    rate,
    decision: decide(rate, row.allowed, row.tokens),
  };
}
