import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.ts';
import { generateSessionToken, hashKey } from './key-material.ts';
import { deleteSession, insertSession } from './console-session.sql.ts';

/**
 * A console session: the browser's stand-in for the key it logged in with, held in an HttpOnly
 * cookie so that no script of the page (nor one injected into it) can read it or the key.
 */
const sessionCookieName = 'neoflow_session';
/** Unused this long, a session ends: a console left open on a shared screen stops acting. */
export const sessionIdleSeconds = 30 * 60;
/** However used, a session ends this long after its login. */
const sessionLifetimeSeconds = 12 * 60 * 60;
/**
 * The header the console sends with every change. A cross-site form cannot set it, and a
 * cross-site script cannot either without a CORS preflight, which the API never grants.
 */
export const consoleHeader = 'X-Neoflow-Console';

/** A new session of the key `keyId`: its token, shown to the browser once, and when it ends at the latest. */
export async function openSession(em: EntityManager, keyId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = generateSessionToken();
  const expiresAt = await insertSession(em, {
    id: newId('ses'),
    keyId,
    tokenHash: hashKey(token),
    idleSeconds: sessionIdleSeconds,
    lifetimeSeconds: sessionLifetimeSeconds,
  });
  return { token, expiresAt };
}

export const closeSession = (em: EntityManager, sessionId: string) => deleteSession(em, sessionId);

/**
 * The `Set-Cookie` value of a session (of its removal when `token` is empty): HttpOnly, same-site
 * only, for the whole origin (the console's page and the API under /v1), Secure when the request
 * came over TLS, so that a browser never sends it over plain HTTP once it was set over HTTPS.
 */
export function sessionCookie(token: string, secure: boolean): string {
  const maxAge = token ? sessionLifetimeSeconds : 0;
  return [
    `${sessionCookieName}=${token}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The session token a `Cookie` header carries, if any. */
export function presentedSession(cookieHeader: string): string | undefined {
  for (const pair of cookieHeader.split(';')) {
    const [name, value] = pair.trim().split('=', 2);
    if (name === sessionCookieName && value) return value;
  }
  return undefined;
}
