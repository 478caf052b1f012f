import type { EntityManager } from '@mikro-orm/postgresql';

/** The hand-written statements of the `console_sessions` table. */

/**
 * A new session of a key, ending at the latest `lifetimeSeconds` from now; the key's sessions that
 * have ended (idle or past their end) are deleted in the same statement, so a key's rows stay few.
 */
const insertSql = `with "ended" as (
  delete from "console_sessions"
  where "key_id" = ? and ("expires_at" <= clock_timestamp() or "last_seen_at" <= clock_timestamp() - make_interval(secs => ?))
)
insert into "console_sessions" ("id", "key_id", "token_hash", "expires_at")
values (?, ?, ?, clock_timestamp() + make_interval(secs => ?))
returning "expires_at"`;

export async function insertSession(
  em: EntityManager,
  session: { id: string; keyId: string; tokenHash: string; idleSeconds: number; lifetimeSeconds: number },
): Promise<Date> {
  const [row] = await em
    .getConnection()
    .execute<{ expires_at: Date }[]>(insertSql, [
      session.keyId,
      session.idleSeconds,
      session.id,
      session.keyId,
      session.tokenHash,
      session.lifetimeSeconds,
    ]);
  return new Date(row!.expires_at);
}

/** When a session ends at the latest; undefined once it is gone. */
export async function sessionEnd(em: EntityManager, id: string): Promise<Date | undefined> {
  const [row] = await em
    .getConnection()
    .execute<{ expires_at: Date }[]>(`select "expires_at" from "console_sessions" where "id" = ?`, [id]);
  return row ? new Date(row.expires_at) : undefined;
}

export async function deleteSession(em: EntityManager, id: string): Promise<void> {
  await em.getConnection().execute(`delete from "console_sessions" where "id" = ?`, [id]);
}
