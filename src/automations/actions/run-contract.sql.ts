import { audit } from '../../audit/audit.ts';
import { systemActor } from '../../audit/actor.ts';
import { valuesSummary } from '../../audit/summary.ts';
import { formatDecimal } from '../../chain/decimal.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PreparedCall } from '../../chain/contract-call.ts';
import type { ContractCall } from '../../chain/contract-calls.ts';
import { executeBound } from '../../db/bound-statement.ts';
import { jsonbParam } from '../../db/jsonb-param.ts';
import { storableText } from '../../db/storable.ts';
import type { Action } from '../model/action.schemas.ts';
import type { ApprovalRequest, FirePayload, RunError } from '../model/run.entity.ts';
import { countRunEnd } from '../runs/fires.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

/**
 * A contract run's writes in the `automation_runs` table (a contract action's run, or a sending
 * function's), each conditional on what the row holds, so that an attempt of a step that is late
 * (a retried activity whose first attempt still runs) can never undo what another stored: a run
 * holds at most one transaction, and keeps it. Each end is counted once, by the attempt that
 * wrote it.
 */

const storeCallsSql = `update "automation_runs" set "calls" = ?
where "id" = ? and "status" = '${runStatus.running}' and "tx_raw" is null and "calls" is null`;

/**
 * Stores `calls` as what the run sends unless it holds calls already or has ended; answers what
 * the run holds after, null when it holds no calls. The calls (a function's decision may be a MiB)
 * are a bound value: escaped into the statement's text they would hold the main thread.
 */
export async function storeCalls(
  em: EntityManager,
  runId: string,
  calls: ContractCall[],
): Promise<ContractCall[] | null> {
  await executeBound(em, storeCallsSql, [jsonbParam(calls), runId]);
  const [row] = await em.execute<{ calls: ContractCall[] | null }[]>(
    `select "calls" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return row?.calls ?? null;
}

/**
 * Records the signer the run's transaction is prepared with, unless the run holds one already (an
 * earlier attempt's: every attempt signs as the first chose) or has ended. Its spend counts against
 * that signer (gas-spend.ts), and its `low_gas` check reads that signer's balance.
 */
export async function recordSigner(em: EntityManager, runId: string, signerId: string) {
  await em.execute(
    `update "automation_runs" set "signer_id" = ?
      where "id" = ? and "signer_id" is null and "status" = '${runStatus.running}' and "tx_raw" is null`,
    [signerId, runId],
  );
}

const storeTransactionSql = `update "automation_runs" set "tx_hash" = ?, "tx_raw" = ?, "valid_until_block" = ?
where "id" = ? and "status" = '${runStatus.running}' and "tx_raw" is null
  and exists (select 1 from "gas_reservations" where "run_id" = ? and "tx_hash" = ? and "state" = 'reserved')`;

/**
 * Stores `call` as the run's transaction unless the run holds one already or has ended, or its
 * fee is no longer reserved: a run holds one reservation, and a later attempt's reservation
 * released a stale attempt's (gas-spend.ts `reserve`). The run's row is locked first, as `reserve`
 * locks it, so the check reads what a reservation that held the lock committed.
 */
export async function storeTransaction(em: EntityManager, runId: string, call: PreparedCall, signed: Signed) {
  await em.transactional(async (tx) => {
    await tx.execute(`select 1 from "automation_runs" where "id" = ? for update`, [runId]);
    const { hash, rawTransaction, validUntilBlock } = call;
    const stored = await executeBound(tx, storeTransactionSql, [
      hash,
      rawTransaction,
      validUntilBlock,
      runId,
      runId,
      hash,
    ]);
    // The audit log's record of what was signed, with the transaction it records: once per run.
    if (stored.affectedRows > 0) {
      audit(tx, systemActor(signed.accountId), {
        action: 'transaction.sign',
        resource: { type: 'transaction', id: hash },
        summary: valuesSummary({
          runId,
          automationId: signed.automationId,
          signerId: signed.signer.id,
          signer: signed.signer.address,
          network: signed.network,
          fees: formatDecimal({ digits: signed.fee, scale: 8 }),
          validUntilBlock,
        }),
      });
    }
  });
}

/** What the audit log says of a signed transaction beside its hash: whose, by which key, where, at what cost. */
interface Signed {
  accountId: string;
  automationId: string;
  signer: { id: string; address: string };
  network: string;
  /** System and network fees together, in GAS fractions. */
  fee: bigint;
}

const endUnsentSql = (
  where: string,
) => `update "automation_runs" set "status" = '${runStatus.failure}', "error" = ?, "vm_state" = ?, "gas_consumed" = ?,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatus.running}' and ${where}
returning "trigger"->>'type' as "trigger_type"`;
const failUnsentSql = endUnsentSql(`"tx_raw" is null`);
const failUncalledSql = endUnsentSql(`"calls" is null`);

/**
 * Fails a run that holds no transaction (nothing was signed: no signer, or a test run that
 * faulted, with the VM's state and the GAS it used); a run that holds one keeps running.
 */
export async function failUnsent(
  em: EntityManager,
  runId: string,
  error: RunError,
  test: { vmState: 'FAULT'; gasConsumed: string } | null = null,
) {
  const params = [jsonbParam(error), test?.vmState ?? null, test?.gasConsumed ?? null, runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(failUnsentSql, params);
  if (ended) countRunEnd(ended.trigger_type, runStatus.failure);
}

/**
 * Fails a run whose calls could not be made (a template the trigger cannot fill), unless calls
 * were stored meanwhile: a run without calls has signed nothing.
 */
export async function failUncalled(em: EntityManager, runId: string, error: RunError) {
  const [ended] = await em.execute<{ trigger_type: string }[]>(failUncalledSql, [jsonbParam(error), null, null, runId]);
  if (ended) countRunEnd(ended.trigger_type, runStatus.failure);
}

/** What the run is now: its status, whether it holds a transaction, and its request for approvals. */
export async function contractRunState(em: EntityManager, runId: string) {
  const [row] = await em.execute<{ status: RunStatus; sent: boolean; approval: ApprovalRequest | null }[]>(
    `select "status", "tx_raw" is not null as "sent", "approval" from "automation_runs" where "id" = ?`,
    [runId],
  );
  return row ?? null;
}

/** What the chain says of a transaction in a block, in GAS fractions but for the VM's state. */
interface InBlock {
  vmState: 'HALT' | 'FAULT';
  gasConsumed: string;
  systemFee: string;
  networkFee: string;
}

const endSentSql = `update "automation_runs" set "status" = ?, "error" = ?, "vm_state" = ?, "gas_consumed" = ?,
  "system_fee" = ?, "network_fee" = ?, "relay_error" = null,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatus.running}'
returning "trigger"->>'type' as "trigger_type"`;

/**
 * Ends a running run whose transaction was sent, with what the chain says of it (`inBlock`, when
 * it is in one); a run that ended already keeps its end.
 */
export async function endSent(
  em: EntityManager,
  runId: string,
  status: Exclude<RunStatus, typeof runStatus.running>,
  error: RunError | null,
  inBlock: InBlock | null,
) {
  const chain = [inBlock?.vmState, inBlock?.gasConsumed, inBlock?.systemFee, inBlock?.networkFee];
  const params = [status, jsonbParam(error), ...chain.map((value) => value ?? null), runId];
  const [ended] = await em.execute<{ trigger_type: string }[]>(endSentSql, params);
  if (ended) countRunEnd(ended.trigger_type, status);
}

/** Notes that a node accepted the run's transaction: its refusal of a re-send no longer ends the run. */
export async function markRelayed(em: EntityManager, runId: string) {
  await em.execute(`update "automation_runs" set "tx_relayed" = true where "id" = ?`, [runId]);
}

const noteRelayErrorSql = `update "automation_runs" set "relay_error" = ? where "id" = ? and "status" = '${runStatus.running}'`;

/** Why the chain cannot be read while the run's transaction may still land; null once it answers again. */
export async function noteRelayError(em: EntityManager, runId: string, message: string | null) {
  await em.execute(noteRelayErrorSql, [message === null ? null : storableText(message).slice(0, 512), runId]);
}

const endSkippedSql = `update "automation_runs" set "status" = '${runStatus.success}', "skipped" = ?,
  "completed_at" = now(), "duration" = (extract(epoch from now() - "started_at") * 1000)::int
where "id" = ? and "status" = '${runStatus.running}' and "calls" is null and "tx_raw" is null
returning "trigger"->>'type' as "trigger_type"`;

/**
 * Ends a run whose function decided to send nothing as a success that sent nothing, with its
 * reason, unless the run holds calls or a transaction (decided by another attempt) or has ended.
 */
export async function endSkipped(em: EntityManager, runId: string, reason: string) {
  const [ended] = await em.execute<{ trigger_type: string }[]>(endSkippedSql, [storableText(reason), runId]);
  if (ended) countRunEnd(ended.trigger_type, runStatus.success);
}

/** A sending function's run as its deciding step reads it. */
export interface DecideRow {
  status: RunStatus;
  /** The run holds calls (decided by an earlier attempt) or a transaction: nothing is decided again. */
  decided: boolean;
  execution_id: string | null;
  trigger: FirePayload;
  action: Action;
}

const readToDecideSql = `select r."status", (r."calls" is not null or r."tx_raw" is not null) as "decided",
  r."execution_id", r."trigger", a."action"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
where r."id" = ?`;

export async function readRunToDecide(em: EntityManager, runId: string): Promise<DecideRow | undefined> {
  const [run] = await em.execute<DecideRow[]>(readToDecideSql, [runId]);
  return run;
}
