import { z } from 'zod';
import { paginationQuery } from '../wire/pagination.ts';
import { isoTime } from '../wire/response-schemas.ts';
import { auditActions, resourceTypes } from './audit-actions.ts';

const time = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }).transform((text) => new Date(text));

/** A page's end, as `pagination.next` gave it: opaque to clients. */
const cursor = z
  .string()
  .max(200, 'must be a `pagination.next` of an earlier page')
  .regex(/^[A-Za-z0-9_-]+$/, 'must be a `pagination.next` of an earlier page');

export const listAuditEventsQuery = z.strictObject({
  limit: paginationQuery(50).limit,
  /** The page after this one (`pagination.next` of the page before). */
  after: cursor.optional(),
  /** Events of this key (`key_…`) only. */
  actor: z.string().max(255, 'must be a key id').optional(),
  action: z.enum(auditActions, { error: 'must be an action of docs/api.md, "Audit log"' }).optional(),
  resourceType: z.enum(resourceTypes, { error: `must be one of ${resourceTypes.join(', ')}` }).optional(),
  resourceId: z.string().max(255, 'must be at most 255 characters').optional(),
  /** From this time on (inclusive). */
  since: time.optional(),
  /** Before this time (exclusive). */
  until: time.optional(),
});

export type ListAuditEvents = z.infer<typeof listAuditEventsQuery>;

const summaryValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const auditEventSchema = z
  .strictObject({
    id: z.string(),
    occurredAt: isoTime,
    actor: z.strictObject({
      /** `key` (an API key), `cli` (a command on the server), `system` (Neoflow itself: a signed transaction), `anonymous` (a refused key). */
      type: z.string(),
      keyId: z.string().nullable(),
      name: z.string().nullable(),
      role: z.string().nullable(),
      /** A key made with scopes rather than a role. */
      scopes: z.array(z.string()).nullable(),
    }),
    requestId: z.string().nullable(),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    action: z.string(),
    resource: z.strictObject({ type: z.string(), id: z.string() }),
    /** The fields changed, and the values among them safe to show: never a secret, key, URL or code. */
    summary: z.strictObject({
      fields: z.array(z.string()).optional(),
      values: z.record(z.string(), summaryValue).optional(),
    }),
  })
  .meta({ id: 'AuditEvent' });

export const auditEventPageSchema = z
  .strictObject({
    events: z.array(auditEventSchema),
    pagination: z.strictObject({
      limit: z.number().int(),
      hasMore: z.boolean(),
      /** Send it as `after` for the next page; null on the last. */
      next: z.string().nullable(),
    }),
  })
  .meta({ id: 'AuditEventPage' });
