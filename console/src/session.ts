import type { Session } from './types.ts';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** What the API said of the session: who it is and what its key may do. */
export type { Session };

/** Scopes a wider one grants too (src/auth/scopes.ts): whoever may change automations may operate them. */
const impliedBy: Record<string, string> = { 'automations:operate': 'automations:write' };

/** Whether the session's key holds `scope`: what decides which buttons are shown (the API decides the rest). */
export function may(session: Pick<Session, 'scopes'>, scope: string): boolean {
  const { scopes } = session;
  const wider = impliedBy[scope];
  return scopes.includes('*') || scopes.includes(scope) || (wider !== undefined && scopes.includes(wider));
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a logged-in console');
  return session;
}
