import type { EntityManager } from '@mikro-orm/postgresql';
import type { Budget } from '../../chain/gas-budget.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';

/**
 * The statements of GAS spending (migration 0016): `automation_gas_spend` and `account_gas_spend`,
 * what each automation and each account spent today (a UTC day, the database's) and in all, landed
 * and reserved; and `gas_reservations`, one per transaction a run's prepare priced; and the lock
 * of the run a reservation is for. Run inside the transactions of gas-spend.ts, which say in what
 * order.
 */

const utcToday = `(now() at time zone 'UTC')::date`;

/** A UTC day's counter: what `today` holds once the day changed. */
const todayOf = `case when "day" = ${utcToday} then "today" else 0 end`;

/** Whose counter: an automation's or an account's. */
type Counter = 'automation' | 'account';

const counters = {
  automation: { table: 'automation_gas_spend', owner: 'automation_id' },
  account: { table: 'account_gas_spend', owner: 'account_id' },
} as const;

const openCounterSql = (table: string, owner: string) =>
  `insert into "${table}" ("${owner}", "day") values (?, ${utcToday}) on conflict ("${owner}") do nothing`;

const addSql = (table: string, owner: string) => `update "${table}" set
  "today" = ${todayOf} + ?, "day" = ${utcToday}, "total" = "total" + ? where "${owner}" = ?`;

/** A change of a reservation made on `day`: today's counter moves only if that day is still today. */
const changeSql = (table: string, owner: string) => `update "${table}" set
  "today" = case when "day" = ?::date then "today" + ? else "today" end, "total" = "total" + ? where "${owner}" = ?`;

/** Creates the counter of `id` unless it exists. */
export async function openCounter(tx: EntityManager, counter: Counter, id: string) {
  const { table, owner } = counters[counter];
  await tx.execute(openCounterSql(table, owner), [id]);
}

/** The automation's counter, its row locked: what it spent today and in all. */
export async function lockAutomationCounter(tx: EntityManager, automationId: string) {
  const [counter] = await tx.execute<{ today: string; total: string }[]>(
    `select ${todayOf} as "today", "total" from "automation_gas_spend" where "automation_id" = ? for update`,
    [automationId],
  );
  return { today: BigInt(counter!.today), total: BigInt(counter!.total) };
}

/** Adds `fee` to today's and the total of `id`'s counter. */
export async function addToCounter(tx: EntityManager, counter: Counter, id: string, fee: bigint) {
  const { table, owner } = counters[counter];
  await tx.execute(addSql(table, owner), [fee, fee, id]);
}

/** Moves `id`'s counter by `change`, today's only if `day` is still today. */
export async function changeCounter(tx: EntityManager, counter: Counter, id: string, day: string, change: bigint) {
  const { table, owner } = counters[counter];
  await tx.execute(changeSql(table, owner), [day, change, change, id]);
}

/** A run as a reservation of its GAS reads it, with the budgets of its automation and account. */
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

export async function lockRunToReserve(tx: EntityManager, runId: string): Promise<RunToReserve | undefined> {
  const [run] = await tx.execute<RunToReserve[]>(lockRunSql, [runId]);
  return run;
}

/** Whether the run's transaction `txHash` holds a reservation already. */
export async function reservationHeld(tx: EntityManager, runId: string, txHash: string): Promise<boolean> {
  const [held] = await tx.execute(`select 1 from "gas_reservations" where "run_id" = ? and "tx_hash" = ?`, [
    runId,
    txHash,
  ]);
  return held !== undefined;
}

export async function insertReservation(
  tx: EntityManager,
  reservation: { runId: string; txHash: string; automationId: string; accountId: string; amount: bigint },
) {
  const { runId, txHash, automationId, accountId, amount } = reservation;
  await tx.execute(
    `insert into "gas_reservations" ("run_id", "tx_hash", "automation_id", "account_id", "amount", "day")
      values (?, ?, ?, ?, ?, ${utcToday})`,
    [runId, txHash, automationId, accountId, amount],
  );
}

/** A reservation still held, beside its run as the run's row stands. */
export interface ReservationRow {
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

/** Which reservations to settle: the run's, or those of the automation's runs that ended. */
const settled = {
  ofRun: reservationsSql(`g."run_id" = ?`),
  ofEndedRuns: reservationsSql(`g."automation_id" = ? and r."status" <> '${runStatus.running}'`),
};

/** The reservations still held of run `id` (`ofRun`) or of automation `id`'s ended runs, their rows locked. */
export async function lockReservations(tx: EntityManager, of: keyof typeof settled, id: string) {
  return tx.execute<ReservationRow[]>(settled[of], [id]);
}

/** Ends a reservation: settled at `amount`, or released. */
export async function endReservation(
  tx: EntityManager,
  row: Pick<ReservationRow, 'run_id' | 'tx_hash'>,
  state: 'settled' | 'released',
  amount: bigint | string,
) {
  await tx.execute(
    `update "gas_reservations" set "state" = ?, "amount" = ?, "settled_at" = now()
      where "run_id" = ? and "tx_hash" = ?`,
    [state, amount, row.run_id, row.tx_hash],
  );
}

const spendSql = (table: string, owner: string) => `select
  coalesce((select ${todayOf} from "${table}" where "${owner}" = ?), 0) as "today",
  coalesce((select "total" from "${table}" where "${owner}" = ?), 0) as "total",
  (select coalesce(sum("amount"), 0) from "gas_reservations" where "${owner}" = ? and "state" = 'reserved') as "reserved"`;

/** What `id` spent today and in all, and holds reserved, in GAS fractions. */
export async function spendRow(em: EntityManager, counter: Counter, id: string) {
  const { table, owner } = counters[counter];
  const [row] = await em.execute<{ today: string; total: string; reserved: string }[]>(spendSql(table, owner), [
    id,
    id,
    id,
  ]);
  return { today: BigInt(row!.today), total: BigInt(row!.total), reserved: BigInt(row!.reserved) };
}
