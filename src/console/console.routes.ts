import type { Router } from '@koa/router';
import { z } from 'zod';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { callerOf } from '../api/auth.ts';
import type { Caller } from '../auth/admission.ts';
import { closeSession, openSession, sessionCookie, sessionIdleSeconds } from '../auth/console-session.ts';
import { sessionEnd } from '../auth/console-session.sql.ts';
import { roleNames } from '../auth/roles.ts';
import { AppError } from '../errors.ts';
import type { Resources } from '../resources.ts';
import { emptyBody } from '../wire/empty-body.ts';
import { deletedMessage, isoTime } from '../wire/response-schemas.ts';
import type { Context } from 'koa';

const sessionSchema = z
  .strictObject({
    accountId: z.string(),
    keyId: z.string(),
    /** What the key is called; null for a key made without a name. */
    keyName: z.string().nullable(),
    /** The role the key was made with; null for one made with scopes. */
    role: z.enum(roleNames).nullable(),
    /** What the session may do: exactly its key's scopes. */
    scopes: z.array(z.string()),
    /** When the session ends at the latest; it ends sooner when unused for `idleTimeoutSeconds`. */
    expiresAt: isoTime,
    idleTimeoutSeconds: z.number().int(),
    /** Where the console links a transaction: this and the hash; null when none is configured. */
    explorerUrl: z.string().nullable(),
  })
  .meta({ id: 'ConsoleSession' });

/**
 * The console's session (docs/console.md): a key exchanged for a short-lived HttpOnly cookie, so
 * that the browser never keeps the key. The cookie then stands for the key on every route of the
 * API, with exactly its scopes (src/api/auth.ts).
 */
export function consoleRoutes(resources: Resources): Router {
  const { em, config } = resources;
  const explorerUrl = config.console.explorerUrl ?? null;
  // The admission read the key's name and role with its scopes (src/auth/admission.ts).
  const describe = (caller: Caller, expiresAt: Date) => ({
    accountId: caller.accountId,
    keyId: caller.keyId,
    keyName: caller.keyName,
    role: caller.role as (typeof roleNames)[number] | null,
    scopes: [...caller.scopes],
    expiresAt: expiresAt.toISOString(),
    idleTimeoutSeconds: sessionIdleSeconds,
    explorerUrl,
  });
  return areaRouter('/v1/console', [
    route({
      method: 'post',
      path: '/session',
      summary: 'Open a console session',
      description:
        "Exchanges the key sent in `Authorization` (or `X-API-Key`) for a session of the web console at `/console`: answers the session and sets it in an `HttpOnly; SameSite=Strict` cookie (`Secure` over TLS). The session acts with exactly its key's scopes, ends after 30 minutes unused or 12 hours in all, and with its key. A session cannot open another (403).",
      tag: 'Console',
      body: emptyBody,
      bodyOptional: true,
      errors: ['forbidden'],
      responses: { 201: sessionSchema },
      handle: async ({ ctx }) => {
        const caller = callerOf(ctx.state);
        if (caller.sessionId !== undefined) {
          throw new AppError('forbidden', 'A console session is opened with a key, not with another session.');
        }
        const { token, expiresAt } = await openSession(em(), caller.keyId);
        ctx.set('Set-Cookie', sessionCookie(token, overTls(ctx)));
        ctx.set('Cache-Control', 'no-store');
        return bare(describe(caller, expiresAt), 201);
      },
    }),
    route({
      method: 'get',
      path: '/session',
      summary: 'Retrieve the console session',
      description:
        'Answers the session of the cookie sent (or, for a key, what a session of it would be): its account, role and scopes, which the console uses to show only the buttons they allow (the API refuses the others anyway).',
      tag: 'Console',
      responses: { 200: sessionSchema },
      handle: async ({ ctx }) => {
        const caller = callerOf(ctx.state);
        const end = caller.sessionId === undefined ? undefined : await sessionEnd(em(), caller.sessionId);
        ctx.set('Cache-Control', 'no-store');
        return bare(describe(caller, end ?? new Date(Date.now() + sessionIdleSeconds * 1000)));
      },
    }),
    route({
      method: 'delete',
      path: '/session',
      summary: 'Log out of the console',
      description: 'Ends the session of the cookie sent, at once, and clears the cookie.',
      tag: 'Console',
      responses: { 200: deletedMessage },
      handle: async ({ ctx }) => {
        const { sessionId } = callerOf(ctx.state);
        if (sessionId !== undefined) await closeSession(em(), sessionId);
        ctx.set('Set-Cookie', sessionCookie('', overTls(ctx)));
        return bare({ success: true, message: 'Logged out.' });
      },
    }),
  ]);
}

/** Over TLS here, or at the proxy in front that says so. */
const overTls = (ctx: Context) =>
  ctx.protocol === 'https' || ctx.get('X-Forwarded-Proto').split(',')[0]?.trim() === 'https';
