import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound-statement.ts';
import { storableText } from '../../db/storable.ts';
import type { StateMark } from '../model/state-trigger-value.ts';

/** The hand-written statements of the `state_trigger_marks` table: where each state trigger stands. */

export interface MarkWrite extends StateMark {
  automationId: string;
  conditionKey: string;
  failing: boolean;
}

/**
 * Writes the marks inside the caller's transaction (the one that moves the cursor). A trigger
 * deleted since it was read has no mark written.
 */
export async function saveMarks(em: EntityManager, index: number, marks: MarkWrite[]) {
  if (marks.length === 0) return;
  await executeBound(
    em,
    `insert into "state_trigger_marks"
        ("automation_id", "condition_key", "armed", "last_value", "evaluated_block", "failing", "updated_at")
      select m."id", m."key", m."armed", m."value", ?, m."failing", now()
        from unnest(?::text[], ?::text[], ?::boolean[], ?::text[], ?::boolean[])
          as m("id", "key", "armed", "value", "failing")
        where exists (select 1 from "automations" a where a."id" = m."id")
      on conflict ("automation_id") do update set "condition_key" = excluded."condition_key",
        "armed" = excluded."armed", "last_value" = excluded."last_value",
        "evaluated_block" = excluded."evaluated_block", "failing" = excluded."failing", "updated_at" = now()`,
    [
      index,
      marks.map((mark) => mark.automationId),
      marks.map((mark) => mark.conditionKey),
      marks.map((mark) => mark.armed),
      marks.map((mark) => (mark.lastValue === null ? null : storableText(mark.lastValue))),
      marks.map((mark) => mark.failing),
    ],
  );
}
