import type { EntityManager } from '@mikro-orm/postgresql';
import { toContractParam, type ContractArg } from '../../chain/contract-args.ts';
import { rpcErrorCode, type NeoRpc } from '../../chain/rpc.ts';
import type { Invocation } from '../../chain/stack-item.ts';
import { activeStateRows } from '../model/automation.sql.ts';
import { quarantine } from './quarantine.ts';
import type { Firing } from '../runs/fires.ts';
import { conditionKey, readKey } from './state-trigger-keys.ts';
import type { MarkWrite } from './state-trigger-mark.sql.ts';
import { decideState, freshMark, isDue, observedValue } from '../model/state-trigger-value.ts';

/** What the follower writes of one trigger with the block's cursor (state_trigger_marks). */
export interface StateEvaluation {
  firings: Firing[];
  marks: MarkWrite[];
}

/** Distinct reads in flight at once: the node serves the block's own reads too. */
const readConcurrency = 4;

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
  const due = (await activeStateRows(em)).filter((row) => {
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
