import type { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import type { Scope } from '../auth/scopes.ts';
import type { Caller } from '../auth/admission.ts';
import { requireScope } from './auth.ts';
import { pageEnvelope } from '../wire/pagination.ts';
import { apiRouter } from './router.ts';
import { parseBody, parseQuery } from './validate.ts';
import type { ApiTag } from './openapi-info.ts';
import type { ErrorCode } from '../errors.ts';
import { requestActor, type Actor } from '../audit/actor.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';

/** The names of a path's parameters: `'/:id/runs/:runId'` gives `'id' | 'runId'`. */
type ParamNames<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/** What a route's handler receives: everything already validated. */
interface RouteInput<Path extends string, Query, Body> {
  /** The caller's account: set on every route of a protected area (src/api/auth.ts). */
  accountId: string;
  /** Who calls, as the audit log records it: given to every service that changes something. */
  actor: Actor;
  params: Record<ParamNames<Path>, string>;
  query: Query;
  body: Body;
  /** For what the declaration cannot say (response headers, the request's origin). */
  ctx: Context;
}

/** A status and a body, built by the area's envelope builders. */
export interface Answer {
  status: number;
  body: unknown;
}

/**
 * One route, declared in one place: method, path, what it does for the reference (a summary, a
 * description and its group), the scope its key needs, the schemas of its query and body
 * (validated before the handler runs, a 400 naming the field otherwise), the schema of each answer
 * by status (errors are the area's, src/api/areas.ts), and middleware of its own for what a scope
 * cannot express (the codec's operator guard).
 */
interface RouteSpec<Path extends string, Query, Body> {
  method: Method;
  path: Path;
  /** An imperative phrase, Stripe's style: `Create a function`. */
  summary: string;
  /** What a user needs beyond the schemas: Markdown, docs/api.md named where its rules are long. */
  description: string;
  tag: ApiTag;
  scope?: Scope;
  query?: z.ZodType<Query>;
  body?: z.ZodType<Body>;
  /** A request with no body is read as `{}`: for a body whose fields are all optional. */
  bodyOptional?: true;
  responses: Partial<Record<number, z.ZodType>>;
  /**
   * What the 200 answers as `application/x-ndjson` (one value a line) to a request that accepts it:
   * the schema of one line. A `before` middleware of the route streams it.
   */
  streams?: z.ZodType;
  /**
   * The error codes the handler (its services, its `before`) can answer; the kit adds those of
   * the declaration itself (a body, a scope, idempotency…: src/api/openapi-errors.ts). The
   * document's error statuses are these, and the tests fail any answer they do not declare.
   */
  errors?: ErrorCode[];
  before?: Middleware[];
  /** Makes the route safe to repeat under an `Idempotency-Key` (src/api/idempotency.ts). */
  idempotency?: Middleware;
  handle(input: RouteInput<Path, Query, Body>): Promise<Answer>;
}

/** Declares a route; a function only so that TypeScript infers its path's params and schemas. */
export const route = <Path extends string, Query = undefined, Body = undefined>(spec: RouteSpec<Path, Query, Body>) =>
  spec as RouteSpec<string, unknown, unknown>;

/** A route as declared, with its full path: what the OpenAPI document is built from. */
export interface DeclaredRoute {
  method: Method;
  /** The prefix and the route's path, `:name` for a parameter. */
  path: string;
  spec: RouteSpec<string, unknown, unknown>;
}

const declarations = new WeakMap<Router, DeclaredRoute[]>();

/** The routes an area router was declared with (none for a router not made by `areaRouter`). */
export const declaredRoutes = (router: Router): DeclaredRoute[] => declarations.get(router) ?? [];

/** The router of one area: its routes under `prefix`, each guarded, validated and answered alike. */
export function areaRouter(prefix: string, routes: RouteSpec<string, unknown, unknown>[]): Router {
  const router = apiRouter(prefix);
  declarations.set(
    router,
    routes.map((spec) => ({ method: spec.method, path: `${prefix}${spec.path}`, spec })),
  );
  for (const spec of routes) {
    const guards = [
      ...(spec.scope ? [requireScope(spec.scope)] : []),
      ...(spec.before ?? []),
      ...(spec.idempotency ? [spec.idempotency] : []),
    ];
    router[spec.method](spec.path, ...guards, async (ctx) => {
      const answer = await spec.handle({
        get accountId() {
          return accountOf(ctx, spec.path);
        },
        get actor() {
          accountOf(ctx, spec.path);
          return requestActor(ctx);
        },
        params: ctx.params,
        query: spec.query ? parseQuery(spec.query, ctx.query) : undefined,
        body: spec.body ? parseBody(spec.body, ctx.request.body ?? (spec.bodyOptional && {})) : undefined,
        ctx,
      });
      ctx.status = answer.status;
      ctx.body = answer.body;
      ctx.state.declaredAnswer = { route: `${spec.method.toUpperCase()} ${prefix}${spec.path}`, spec };
    });
  }
  return router;
}

/**
 * Fails an answer its route does not declare: a status without a schema, or a body its schema
 * refuses. Mounted where answers are checked (tests), so a declaration that drifts from what the
 * code answers fails every test that calls the route: the declarations can be trusted as the
 * description of the API (an OpenAPI document generated from them, say).
 */
export const checkDeclaredAnswers: Middleware = async (ctx, next) => {
  await next();
  const declared = ctx.state.declaredAnswer as { route: string; spec: RouteSpec<string, unknown, unknown> } | undefined;
  if (!declared) return;
  const schema = declared.spec.responses[ctx.status];
  if (!schema) throw new Error(`${declared.route} answered ${ctx.status}, which it does not declare.`);
  const checked = schema.safeParse(ctx.body);
  if (!checked.success) {
    throw new Error(`${declared.route} answered ${ctx.status} unlike its declaration: ${checked.error.message}`);
  }
};

/** Only routes of the protected areas have a caller; asking elsewhere is a mistake in the code. */
function accountOf(ctx: Context, path: string): string {
  const caller = ctx.state.caller as Caller | undefined;
  if (!caller) throw new Error(`The route ${path} is outside the authenticated areas: it has no account.`);
  return caller.accountId;
}

/** The functions area (and everything outside the areas): `{success: true, data}`. */
export const data = (value: unknown, status = 200): Answer => ({ status, body: { success: true, data: value } });

/** A page of the functions area's list: the items as `data`, with `pagination`. */
export const dataPage = <T>(items: T[], page: { limit: number; offset: number }, total: number): Answer => ({
  status: 200,
  body: pageEnvelope(items, page, total),
});

/** The automations and secrets areas: the resource itself, bare. */
export const bare = (body: unknown, status = 200): Answer => ({ status, body });
