import type { MikroORM } from '@mikro-orm/postgresql';
import { until } from './polling.ts';

/**
 * The block the follower last evaluated the state trigger of `automationId` at, once at or past
 * `block` (or, when `timeoutMs` passes first, the last one read: -1 while it has no mark).
 */
export const evaluatedAt = (orm: MikroORM, automationId: string, block: number, timeoutMs: number) =>
  until(
    async () => {
      const [mark] = await orm.em
        .fork()
        .getConnection()
        .execute<{ evaluated_block: number }[]>(
          `select "evaluated_block" from "state_trigger_marks" where "automation_id" = ?`,
          [automationId],
        );
      return mark?.evaluated_block ?? -1;
    },
    (evaluated) => evaluated >= block,
    timeoutMs,
  );
