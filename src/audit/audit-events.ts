import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.ts';
import { auditPage, type AuditEventRow, type AuditKeyset } from './audit-event.sql.ts';
import type { ListAuditEvents } from './audit.schemas.ts';

/** An event as the API shows it. */
function auditEventView(row: AuditEventRow) {
  return {
    id: row.id,
    occurredAt: new Date(row.occurred_at).toISOString(),
    actor: {
      type: row.actor_type,
      keyId: row.actor_key_id,
      name: row.actor_name,
      role: row.actor_role,
      scopes: row.actor_scopes,
    },
    requestId: row.request_id,
    ip: row.ip,
    userAgent: row.user_agent,
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id },
    summary: row.summary,
  };
}

/** Microseconds since 1970 and an id, both integers: what a cursor may hold, nothing else. */
const keysetShape = /^-?\d{1,16}$/;

const badCursor = () =>
  new AppError('invalid_request', '"after" must be the `pagination.next` of an earlier page.', { field: 'after' });

const encodeCursor = (keyset: AuditKeyset) => Buffer.from(`${keyset.at}|${keyset.id}`).toString('base64url');

function decodeCursor(cursor: string): AuditKeyset {
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !keysetShape.test(at) || !/^\d{1,18}$/.test(id)) throw badCursor();
  return { at, id };
}

/**
 * A page of the account's events, newest first, and the cursor of the next (null on the last):
 * one more row is read than shown, to tell.
 */
export async function listAuditEvents(em: EntityManager, accountId: string, query: ListAuditEvents) {
  const rows = await auditPage(
    em,
    accountId,
    query,
    query.after === undefined ? null : decodeCursor(query.after),
    query.limit + 1,
  );
  const shown = rows.slice(0, query.limit);
  const last = shown.at(-1);
  const hasMore = rows.length > query.limit && last !== undefined;
  return {
    events: shown.map(auditEventView),
    pagination: {
      limit: query.limit,
      hasMore,
      next: hasMore ? encodeCursor({ at: last.cursor_at, id: last.id }) : null,
    },
  };
}

/** Rows an export reads a page: its memory stays one page's whatever the log holds. */
const exportPageSize = 500;

/**
 * Every event the query selects, newest first, one JSON line each, read a page at a time. The
 * cursor is checked now, so that a bad one is a 400 before any line is sent.
 */
export function exportAuditEvents(em: EntityManager, accountId: string, query: ListAuditEvents) {
  return exportPages(em, accountId, query, query.after === undefined ? null : decodeCursor(query.after));
}

async function* exportPages(em: EntityManager, accountId: string, query: ListAuditEvents, from: AuditKeyset | null) {
  let keyset = from;
  for (;;) {
    const rows = await auditPage(em, accountId, query, keyset, exportPageSize);
    for (const row of rows) yield `${JSON.stringify(auditEventView(row))}\n`;
    const last = rows.at(-1);
    if (rows.length < exportPageSize || !last) return;
    keyset = { at: last.cursor_at, id: last.id };
  }
}
