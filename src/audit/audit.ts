/**
 * The audit log's writer (issue 47): every change an account can make is recorded, with who made
 * it, in the transaction of the change itself.
 *
 * How to record a change, for every area (approvals included):
 *
 *     audit(em, actor, { action: 'automation.update', resource: { type: 'automation', id },
 *                        summary: changeSummary(body, ['name', 'status']) });
 *
 * `audit` only queues the event in `em`'s unit of work: it is inserted by the flush that writes
 * the change, so call it on the same EntityManager before that flush, or anywhere inside the
 * change's `em.transactional` (which flushes before it commits). A change written by a plain
 * statement runs it inside `em.transactional` too. A change refused (a 4xx thrown before the
 * flush, a unique name taken, a rollback) writes no event. `actor` is built once at the edge
 * (`requestActor(ctx)`), or is `systemActor(accountId)` for what Neoflow does on its own.
 *
 * Never put a secret value, a credential, a key, a webhook's or a notification's URL, or code in a
 * summary: `changeSummary` names every field but shows only the values it is told are safe, and
 * `safeValue` refuses what looks like a key or a URL even then.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from './actor.ts';
import { AuditEvent } from './audit-event.entity.ts';
import { auditActions, type AuditAction, type ResourceType } from './audit-actions.ts';
import { bounded, type AuditSummary } from './summary.ts';
import { storableText } from '../db/storable.ts';

interface AuditChange {
  action: AuditAction;
  resource: { type: ResourceType; id: string };
  summary?: AuditSummary;
}

const cut = (text: string | null, length: number) => (text === null ? null : storableText(text.slice(0, length)));

/** Queues the event of `change` made by `actor` in `em`'s unit of work (see above). */
export function audit(em: EntityManager, actor: Actor, change: AuditChange): void {
  em.create(AuditEvent, auditRecord(actor, change));
}

/**
 * The event's columns, for a change written by one plain statement that writes its event too
 * (`withAuditEvent`, audit-event.sql.ts): an invoke's execution, whose one round trip stays one.
 */
export function auditRecord(actor: Actor, change: AuditChange) {
  if (!auditActions.includes(change.action)) throw new Error(`Unknown audit action ${change.action}.`);
  return {
    ...actorColumns(actor),
    occurredAt: new Date(),
    action: change.action,
    resourceType: change.resource.type,
    resourceId: change.resource.id.slice(0, 255),
    summary: bounded(change.summary ?? {}),
    dedupeKey: null,
  };
}

export type AuditRecord = ReturnType<typeof auditRecord>;

/** The actor's columns, each bounded to its column. */
function actorColumns(actor: Actor) {
  return {
    accountId: actor.accountId,
    actorType: actor.type,
    actorKeyId: actor.keyId,
    actorName: cut(actor.keyName, 64),
    actorRole: cut(actor.role, 16),
    actorScopes: actor.scopes === null ? null : actor.scopes.slice(0, 32).map((scope) => scope.slice(0, 32)),
    requestId: cut(actor.requestId, 128),
    ip: cut(actor.ip, 64),
    userAgent: cut(actor.userAgent, 256),
  };
}
