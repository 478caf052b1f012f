import { Readable } from 'node:stream';
import type { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { areaRouter, bare, route } from '../api/route-kit.ts';
import { callerOf } from '../api/auth.ts';
import { ndjson } from '../api/openapi.ts';
import type { Resources } from '../resources.ts';
import { auditEventPageSchema, auditEventSchema, listAuditEventsQuery } from './audit.schemas.ts';
import { exportAuditEvents, listAuditEvents } from './audit-events.ts';

/**
 * The audit log, read only: no route changes or deletes an event (and the table's trigger refuses
 * it to any statement but the retention purge's). An account sees its own events only.
 */
export function auditRoutes(resources: Resources): Router {
  const { em } = resources;
  /** `Accept: application/x-ndjson`: the whole selection streamed, a page read at a time. */
  const exportWhenAsked: Middleware = async (ctx, next) => {
    // A query the schema refuses goes on to the route, whose validation answers the usual 400.
    const query = listAuditEventsQuery.safeParse(ctx.query);
    if (ctx.accepts('application/json', ndjson) !== ndjson || !query.success) {
      await next();
      return;
    }
    const lines = exportAuditEvents(em(), callerOf(ctx.state).accountId, query.data);
    ctx.status = 200;
    ctx.type = ndjson;
    ctx.body = Readable.from(lines);
  };
  return areaRouter('/v1/audit-events', [
    route({
      method: 'get',
      path: '/',
      errors: ['invalid_request'],
      summary: 'List audit events',
      description:
        'Returns who changed what in the account, newest first: each event\'s time, actor (key id, name, role), request id, address, user agent, action, resource and a summary of the fields changed (never a secret, key, URL or code). Filters: `actor` (a key id), `action`, `resourceType`, `resourceId`, `since`, `until`. Pages by cursor: send `pagination.next` as `after`. With `Accept: application/x-ndjson` the whole selection is streamed as one event a line (an export). Needs `audit:read`; docs/api.md, "Audit log".',
      tag: 'Audit',
      scope: 'audit:read',
      before: [exportWhenAsked],
      query: listAuditEventsQuery,
      responses: { 200: auditEventPageSchema },
      streams: auditEventSchema,
      handle: async ({ accountId, query }) => bare(await listAuditEvents(em(), accountId, query)),
    }),
  ]);
}
