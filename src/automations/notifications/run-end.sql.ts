import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { runStatus } from '../../shared/outcomes.ts';

/**
 * Of `runIds`, those whose automation has a rule told of failures or recoveries: the only runs
 * whose end can record a notification. One statement for a whole block's runs, where reading each
 * run with its automation took a round trip or two apiece.
 */
export async function runsWithEndRules(em: EntityManager, runIds: string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const { rows } = await executeBound<{ id: string }>(
    em,
    `select r."id" from "automation_runs" r join "automations" a on a."id" = r."automation_id"
      where r."id" = any(?::text[])
        and exists (select 1 from jsonb_array_elements(a."notify") as rule
          where jsonb_exists_any(rule->'on', array['${runStatus.failure}', 'recovery']))
      order by r."id"`,
    [runIds],
  );
  return rows.map((row) => row.id);
}
