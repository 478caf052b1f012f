import type { EntityManager } from '@mikro-orm/postgresql';
import { toContractParam, type ContractArg } from '../chain/contract-args.ts';
import { rpcErrorCode, type NeoRpc } from '../chain/rpc.ts';
import type { Invocation } from '../chain/stack-item.ts';
import { executeBound } from '../db/bound-statement.ts';
import { storableText } from '../db/storable.ts';
import type { StateTrigger } from './automations.schemas.ts';
import { quarantine } from './quarantine.ts';
import type { Firing } from './runs.ts';
import { conditionKey, readKey } from './state-trigger-keys.ts';
import { decideState, freshMark, isDue, observedValue, type StateMark } from './state-trigger-value.ts';

/** What the follower writes of one trigger with the block's cursor (state_trigger_marks). */
export interface MarkWrite extends StateMark {
  automationId: string;
  conditionKey: string;
  failing: boolean;
}

export interface StateEvaluation {
  firings: Firing[];
  marks: MarkWrite[];
}

/** Distinct reads in flight at once: the node serves the block's own reads too. */
const readConcurrency = 4;

interface StateRow {
  id: string;
  account_id: string;
  trigger: StateTrigger;
  watch_from_block: number | null;
  condition_key: string | null;
  armed: boolean | null;
  last_value: string | null;
  evaluated_block: number | null;
  failing: boolean | null;
}

/**
 * Evaluates every active state trigger due at `block` (the chain's head as the follower
 * sees it): one `invokefunction` per distinct (contract, method, arguments), whatever the number
 * of automations sharing it, never signed. Answers the runs to record and the marks to write in
 * the block's transaction. A read the node refuses, or an answer a trigger cannot compare, is that
 * trigger's alone: the first of a streak is recorded as a quarantined run, the others only marked,
 * and its armed state is kept. A node that cannot be reached fails the round (the block is read again).
 */
export async function evaluateStateTriggers(
  em: EntityManager,
  neo: NeoRpc,
  block: { blockIndex: number; blockHash: string },
): Promise<StateEvaluation> {
  const due = (await activeStateTriggers(em)).filter((row) => {
    const current = row.condition_key === conditionKey(row);
    return isDue(block.blockIndex, row.trigger.everyBlocks ?? 1, current ? row.evaluated_block : null);
  });
  const reads = await readAll(neo, [...new Set(due.map((row) => readKey(row.trigger)))]);
  const evaluation: StateEvaluation = { firings: [], marks: [] };
  for (const row of due) {
    const key = conditionKey(row);
    const mark = row.condition_key === key ? { armed: row.armed!, lastValue: row.last_value } : freshMark;
    const { trigger } = row;
    const read = reads.get(readKey(trigger))!;
    const observed = 'problem' in read ? read : observedValue(read, trigger.path);
    const target = trigger.value === undefined ? null : BigInt(trigger.value);
    const decided = 'problem' in observed ? observed : decideState(trigger.condition, target, mark, observed);
    const firing: Firing = {
      automation: { id: row.id, account: { id: row.account_id } },
      fireKey: `state:${block.blockIndex}`,
      payload: {
        type: 'state',
        scriptHash: trigger.scriptHash.toLowerCase(),
        operation: trigger.operation,
        value: 'problem' in observed ? '' : observed.value,
        blockIndex: block.blockIndex,
        blockHash: block.blockHash,
      },
    };
    if ('problem' in decided) {
      const wasFailing = row.condition_key === key && row.failing === true;
      if (!wasFailing) evaluation.firings.push(quarantine(firing, new Error(decided.problem)));
      evaluation.marks.push({ automationId: row.id, conditionKey: key, ...mark, failing: true });
      continue;
    }
    if (decided.fire) evaluation.firings.push(firing);
    evaluation.marks.push({ automationId: row.id, conditionKey: key, ...decided.mark, failing: false });
  }
  return evaluation;
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

/** Plain rows, each with its mark: read once for the head block. */
async function activeStateTriggers(em: EntityManager): Promise<StateRow[]> {
  return em.execute<StateRow[]>(
    `select a."id", a."account_id", a."trigger", a."watch_from_block",
        m."condition_key", m."armed", m."last_value", m."evaluated_block", m."failing"
      from "automations" a left join "state_trigger_marks" m on m."automation_id" = a."id"
      where a."status" = 'active' and a."trigger_type" = 'state'`,
  );
}

type Read = Invocation | { problem: string };

async function readAll(neo: NeoRpc, keys: string[]): Promise<Map<string, Read>> {
  const reads = new Map<string, Read>();
  for (let start = 0; start < keys.length; start += readConcurrency) {
    const batch = keys.slice(start, start + readConcurrency);
    const answers = await Promise.all(batch.map((key) => readOnce(neo, key)));
    batch.forEach((key, index) => reads.set(key, answers[index]!));
  }
  return reads;
}

/** One test-invocation; an error the node answers with is the trigger's, any other the round's. */
async function readOnce(neo: NeoRpc, key: string): Promise<Read> {
  const [scriptHash, operation, args] = JSON.parse(key) as [string, string, ContractArg[]];
  try {
    return await neo.invokeFunction(
      scriptHash,
      operation,
      args.map((arg) => toContractParam(arg).toJson()),
    );
  } catch (error) {
    if (rpcErrorCode(error) === undefined) throw error;
    return { problem: (error as Error).message };
  }
}
