import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Notifications recorded whose delivery has not begun within `graceMs`: a crash came between
 * recording them and starting their workflow, or they were recorded where no workflow can be
 * started (an activity that moved an automation to `error`). The recovery sweep starts them.
 */
export async function undispatchedNotifications(em: EntityManager, graceMs: number, limit: number): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select "id" from "notifications" where not "dispatched" and "status" = 'pending' and "created_at" < ? order by "created_at" limit ?`,
    [new Date(Date.now() - graceMs), limit],
  );
  return rows.map((row) => row.id);
}
