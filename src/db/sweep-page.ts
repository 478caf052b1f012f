import type { EntityManager } from '@mikro-orm/postgresql';

/** Where a page of the reconciler's sweep starts: after this (time, id) of the index it pages through. */
interface PageStart {
  at: string;
  id: string;
}

/**
 * A sweep's page statement, run: its values are the grace in seconds (rows younger are left to
 * their process), the keyset the page starts after, and the page's size.
 */
export const sweepPage =
  <Row>(sql: string) =>
  (em: EntityManager, graceSeconds: number, after: PageStart, limit: number) =>
    em.execute<Row[]>(sql, [graceSeconds, after.at, after.id, limit]);
