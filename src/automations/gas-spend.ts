import type { EntityManager } from '@mikro-orm/postgresql';
import type { Budget } from '../chain/gas-budget.ts';
import { fateOf, refusalOf, type Refusal, type ReservationBeside, type Spent } from './budget-rules.ts';
import type { RunStatus } from './run.entity.ts';

/**
 * The SQL of GAS spending (migration 0016): `automation_gas_spend` and `account_gas_spend`, what
 * each automation and each account spent today (a UTC day, the database's) and in all, landed and
 * reserved; and `gas_reservations`, one per transaction a run's prepare priced. A reservation and
 * every change of it move the counters in the same transaction, the automation's counter row
 * locked first: of the prepares of one automation at once, each sees what the ones before it
 * reserved. No lock outlives the statements here (no call to the chain or Temporal meanwhile).
 */

const utcToday = `(now() at time zone 'UTC')::date`;

/** A UTC day's counter: what `today` holds once the day changed. */
const todayOf = `case when "day" = ${utcToday} then "today" else 0 end`;

const openCounterSql = (table: string, owner: string) =>
  `insert into "${table}" ("${owner}", "day") values (?, ${utcToday}) on conflict ("${owner}") do nothing`;

const addSql = (table: string, owner: string) => `update "${table}" set
  "today" = ${todayOf} + ?, "day" = ${utcToday}, "total" = "total" + ? where "${owner}" = ?`;

/** A change of a reservation made on `day`: today's counter moves only if that day is still today. */
const changeSql = (table: string, owner: string) => `update "${table}" set
  "today" = case when "day" = ?::date then "today" + ? else "today" end, "total" = "total" + ? where "${owner}" = ?`;

interface RunToReserve {
  automation_id: string;
  account_id: string;
  status: RunStatus;
  sent: boolean;
  automation_budget: Budget | null;
  account_budget: Budget | null;
}

/** The run, its row locked, with the budgets of its automation and account. */
const lockRunSql = `select r."automation_id", r."account_id", r."status", r."tx_raw" is not null as "sent",
  a."budget" as "automation_budget", acc."budget" as "account_budget"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
join "accounts" acc on acc."id" = r."account_id"
where r."id" = ? for update of r`;

export type Reserved =
  /** The run ended, or holds a transaction already: nothing was reserved. */
  | { kind: 'ended' }
  | { kind: 'reserved' }
  | { kind: 'refused'; refusal: Refusal; from: 'automation' | 'account'; automationId: string };

/**
 * Reserves `call.fee` for the run's transaction `call.hash` against the budget in force (the
 * automation's, else its account's default), or answers the limit it would pass. A repeated
 * reservation of the same transaction reserves nothing more. The counters move without a budget
 * too: the account's spend is shown either way.
 */
export async function reserve(
  em: EntityManager,
  runId: string,
  call: { hash: string; fee: bigint },
): Promise<Reserved> {
  return em.transactional(async (tx) => {
    const [run] = await tx.execute<RunToReserve[]>(lockRunSql, [runId]);
    if (!run || run.status !== 'running' || run.sent) return { kind: 'ended' };
    const [held] = await tx.execute(`select 1 from "gas_reservations" where "run_id" = ? and "tx_hash" = ?`, [
      runId,
      call.hash,
    ]);
    if (held) return { kind: 'reserved' };
    // What ended runs still hold (their step ended before settling) is settled first: it may free room.
    await settleWhere(tx, `g."automation_id" = ? and r."status" <> 'running'`, [run.automation_id]);
    await tx.execute(openCounterSql('automation_gas_spend', 'automation_id'), [run.automation_id]);
    const [counter] = await tx.execute<{ today: string; total: string }[]>(
      `select ${todayOf} as "today", "total" from "automation_gas_spend" where "automation_id" = ? for update`,
      [run.automation_id],
    );
    const spent: Spent = { today: BigInt(counter!.today), total: BigInt(counter!.total) };
    const budget = run.automation_budget ?? run.account_budget;
    const refusal = budget ? refusalOf(budget, spent, call.fee) : null;
    if (refusal) {
      const from = run.automation_budget ? 'automation' : 'account';
      return { kind: 'refused', refusal, from, automationId: run.automation_id };
    }
    await tx.execute(addSql('automation_gas_spend', 'automation_id'), [call.fee, call.fee, run.automation_id]);
    await tx.execute(openCounterSql('account_gas_spend', 'account_id'), [run.account_id]);
    await tx.execute(addSql('account_gas_spend', 'account_id'), [call.fee, call.fee, run.account_id]);
    await tx.execute(
      `insert into "gas_reservations" ("run_id", "tx_hash", "automation_id", "account_id", "amount", "day")
      values (?, ?, ?, ?, ?, ${utcToday})`,
      [runId, call.hash, run.automation_id, run.account_id, call.fee],
    );
    return { kind: 'reserved' };
  });
}

/**
 * Brings the run's reservations in line with its row, after a step that stored its transaction or
 * ended it (fateOf): settled from the chain's fees once in a block, released when rejected,
 * expired or never stored. Safe to repeat.
 */
export async function settleReservationsOf(em: EntityManager, runId: string) {
  await em.transactional((tx) => settleWhere(tx, `g."run_id" = ?`, [runId]));
}

interface ReservationRow {
  run_id: string;
  tx_hash: string;
  automation_id: string;
  account_id: string;
  amount: string;
  day: string;
  run_status: RunStatus | null;
  run_tx_hash: string | null;
  system_fee: string | null;
  network_fee: string | null;
  error_name: string | null;
}

const reservationsSql = (where: string) => `select g."run_id", g."tx_hash", g."automation_id", g."account_id",
  g."amount", g."day"::text as "day", r."status" as "run_status", r."tx_hash" as "run_tx_hash",
  r."system_fee", r."network_fee", r."error"->>'name' as "error_name"
from "gas_reservations" g left join "automation_runs" r on r."id" = g."run_id"
where g."state" = 'reserved' and ${where}
order by g."run_id", g."tx_hash"
for update of g`;

async function settleWhere(tx: EntityManager, where: string, params: unknown[]) {
  const rows = await tx.execute<ReservationRow[]>(reservationsSql(where), params);
  for (const row of rows) {
    const fate = fateOf(besideOf(row));
    if (fate === 'keep') continue;
    const amount = fate === 'release' ? 0n : fate.settle;
    const change = amount - BigInt(row.amount);
    await tx.execute(
      `update "gas_reservations" set "state" = ?, "amount" = ?, "settled_at" = now()
      where "run_id" = ? and "tx_hash" = ?`,
      [fate === 'release' ? 'released' : 'settled', fate === 'release' ? row.amount : amount, row.run_id, row.tx_hash],
    );
    if (change === 0n) continue;
    await tx.execute(changeSql('automation_gas_spend', 'automation_id'), [row.day, change, change, row.automation_id]);
    await tx.execute(changeSql('account_gas_spend', 'account_id'), [row.day, change, change, row.account_id]);
  }
}

const besideOf = (row: ReservationRow): ReservationBeside => ({
  txHash: row.tx_hash,
  run: row.run_status
    ? {
        status: row.run_status,
        txHash: row.run_tx_hash,
        systemFee: row.system_fee,
        networkFee: row.network_fee,
        errorName: row.error_name,
      }
    : null,
});

/** What an automation or an account spent, landed and reserved, in GAS fractions; and what is in flight. */
export interface SpendFigures extends Spent {
  reserved: bigint;
}

const spendSql = (table: string, owner: string) => `select
  coalesce((select ${todayOf} from "${table}" where "${owner}" = ?), 0) as "today",
  coalesce((select "total" from "${table}" where "${owner}" = ?), 0) as "total",
  (select coalesce(sum("amount"), 0) from "gas_reservations" where "${owner}" = ? and "state" = 'reserved') as "reserved"`;

async function spendOf(em: EntityManager, table: string, owner: string, id: string): Promise<SpendFigures> {
  const [row] = await em.execute<{ today: string; total: string; reserved: string }[]>(spendSql(table, owner), [
    id,
    id,
    id,
  ]);
  return { today: BigInt(row!.today), total: BigInt(row!.total), reserved: BigInt(row!.reserved) };
}

export const automationSpend = (em: EntityManager, automationId: string) =>
  spendOf(em, 'automation_gas_spend', 'automation_id', automationId);

export const accountSpend = (em: EntityManager, accountId: string) =>
  spendOf(em, 'account_gas_spend', 'account_id', accountId);
