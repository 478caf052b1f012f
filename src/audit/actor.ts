import type { Context } from 'koa';

/**
 * `anonymous` (a refused key) and `operator` (the codec's token) are written by
 * audit-event.sql.ts alone: neither has an account to act in.
 */
type ActorType = 'key' | 'cli' | 'system' | 'anonymous' | 'operator';

/**
 * Who made a change, as the audit log records it. Built once per request at the edge
 * (`requestActor`) and handed to the services that change something, or made for the process
 * itself where no request is (`systemActor`, `cliActor`). Nothing here is a secret: a key is
 * named by its id, name and role, never by itself.
 */
export interface Actor {
  accountId: string;
  /** `key`: a request with an API key; `cli`: a command on the server; `system`: Neoflow itself. */
  type: ActorType;
  keyId: string | null;
  keyName: string | null;
  role: string | null;
  /** The key's scopes when it was made without a role (a role names them already). */
  scopes: readonly string[] | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** What the admission knows of a request's key (src/auth/admission.ts, `Caller`). */
interface KeyCaller {
  accountId: string;
  keyId: string;
  keyName: string | null;
  role: string | null;
  scopes: readonly string[];
}

/** The actor of an authenticated request (`ctx.state.caller`, set by src/api/auth.ts). */
export function requestActor(ctx: Pick<Context, 'state' | 'ip' | 'get'>): Actor {
  const caller = ctx.state.caller as KeyCaller;
  return {
    accountId: caller.accountId,
    type: 'key',
    keyId: caller.keyId,
    keyName: caller.keyName,
    role: caller.role,
    scopes: caller.role ? null : caller.scopes,
    ...requestOrigin(ctx),
  };
}

/** What a request says about where it comes from: its id, address and user agent. */
export function requestOrigin(ctx: Pick<Context, 'state' | 'ip' | 'get'>) {
  return {
    requestId: (ctx.state.requestId as string | undefined) ?? null,
    ip: ctx.ip || null,
    userAgent: ctx.get('User-Agent') || null,
  };
}

const nobody = { keyId: null, keyName: null, role: null, scopes: null, requestId: null, ip: null, userAgent: null };

/** Neoflow itself, for what a run or the reconciler does on its own (a transaction it signs). */
export const systemActor = (accountId: string): Actor => ({ accountId, type: 'system', ...nobody });

/** A command run on the server (`neoflow keys create`), which has no key of its own. */
export const cliActor = (accountId: string): Actor => ({ accountId, type: 'cli', ...nobody });
