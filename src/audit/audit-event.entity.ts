import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { StorableJson } from '../db/storable.ts';
import { TextArrayType } from '../db/text-array.ts';
import { auditEventsWritten } from '../metrics/metrics.ts';
import type { AuditSummary } from './summary.ts';

/**
 * One change as the audit log keeps it (migration 0034): never updated, deleted only by the
 * retention purge (a trigger refuses anything else). Written through `audit()` (audit.ts), which
 * bounds every field; read and purged through audit-event.sql.ts.
 */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    /** A plain column, no relation: an event is written beside its change, never loaded with it. */
    accountId: p.string().nullable(),
    occurredAt: p.datetime().onCreate(() => new Date()),
    actorType: p.string().length(16),
    actorKeyId: p.string().nullable(),
    actorName: p.string().length(64).nullable(),
    actorRole: p.string().length(16).nullable(),
    actorScopes: p.type(TextArrayType).nullable(),
    requestId: p.string().length(128).nullable(),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(256).nullable(),
    action: p.string().length(64),
    resourceType: p.string().length(32),
    resourceId: p.string(),
    summary: p.type(StorableJson).$type<AuditSummary>(),
    dedupeKey: p.string().nullable(),
  },
  hooks: {
    // Counted once inserted: an event whose change is refused at flush is never counted.
    afterCreate: [(event: { entity: { action: string } }) => auditEventsWritten.inc({ action: event.entity.action })],
  },
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
