import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../db/bound-statement.ts';
import { executionStatus } from '../shared/outcomes.ts';

/** The hand-written statements of the `function_versions` table. */

/** The highest version made of the function, plus one. */
export async function nextVersion(em: EntityManager, functionId: string): Promise<number> {
  const [row] = await em.execute<{ next: number }[]>(
    `select coalesce(max("version"), 0) + 1 as "next" from "function_versions" where "function_id" = ?`,
    [functionId],
  );
  return row!.next;
}

/**
 * Deletes the function's oldest versions while it has more than `most`, sparing the version it
 * runs, the one last promoted (a rollback's target), those an automation's action pins
 * (`functionVersion`) and those a running execution runs: what it spares may keep it above `most`.
 * Answers the numbers deleted. The caller holds the function's row locked.
 */
export async function pruneVersions(
  em: EntityManager,
  fn: { id: string; version: number; promotedVersion?: number | null },
  most: number,
) {
  const { rows } = await executeBound<{ version: number }>(
    em,
    `delete from "function_versions" "v" where "v"."function_id" = ? and "v"."version" in (
      select "version" from "function_versions" where "function_id" = ? and "version" <> ? and "version" <> ?
        and "version" not in (
          select ("action"->>'functionVersion')::int from "automations"
            where "function_id" = ? and "action"->>'functionVersion' is not null
          union all
          select "function_version" from "executions"
            where "function_id" = ? and "status" = '${executionStatus.running}' and "function_version" is not null)
        order by "version"
        limit greatest((select count(*) from "function_versions" where "function_id" = ?) - ?, 0))
      returning "v"."version"`,
    [fn.id, fn.id, fn.version, fn.promotedVersion ?? fn.version, fn.id, fn.id, fn.id, most],
  );
  return rows.map((row) => row.version);
}
