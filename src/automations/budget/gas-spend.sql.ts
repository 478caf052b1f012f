import type { EntityManager } from '@mikro-orm/postgresql';
import type { Budget } from '../../chain/gas-budget.ts';
import { runStatus, type RunStatus } from '../../shared/outcomes.ts';
import { defaultSignerName } from '../../signers/signer.sql.ts';

/**
 * The statements of GAS spending (migration 0016): `automation_gas_spend` and `account_gas_spend`,
 * what each automation and each account spent today (a UTC day, the database's) and in all, landed
 * and reserved; and `gas_reservations`, one per transaction a run's prepare priced; and the lock
 * of the run a reservation is for. Run inside the transactions of gas-spend.ts, which say in what
 * order. An account's counter is one network's (migration 0030: GAS of one network is not GAS of
 * another), the network of the automation that spent, read with the run or the reservation; and
 * one signer's (migration 0032): the run's, else its automation's, kept with the reservation.
 */

const utcToday = `(now() at time zone 'UTC')::date`;

/** A UTC day's counter: what `today` holds once the day changed. */
const todayOf = `case when "day" = ${utcToday} then "today" else 0 end`;

/** Whose counter: an automation's, or an account's signer's on one network. */
type CounterOf = { automation: string } | { account: string; network: string; signer: string };

/** The counter's table, its key's columns and their values, in the same order. */
function counterKey(of: CounterOf) {
  return 'automation' in of
    ? { table: 'automation_gas_spend', columns: ['automation_id'], values: [of.automation] }
    : {
        table: 'account_gas_spend',
        columns: ['account_id', 'network', 'signer_id'],
        values: [of.account, of.network, of.signer],
      };
}

const quoted = (columns: string[]) => columns.map((column) => `"${column}"`).join(', ');
const keyWhere = (columns: string[]) => columns.map((column) => `"${column}" = ?`).join(' and ');

const openCounterSql = (table: string, columns: string[]) =>
  `insert into "${table}" (${quoted(columns)}, "day") values (${columns.map(() => '?').join(', ')}, ${utcToday})
    on conflict (${quoted(columns)}) do nothing`;

const addSql = (table: string, columns: string[]) => `update "${table}" set
  "today" = ${todayOf} + ?, "day" = ${utcToday}, "total" = "total" + ? where ${keyWhere(columns)}`;

/** A change of a reservation made on `day`: today's counter moves only if that day is still today. */
const changeSql = (table: string, columns: string[]) => `update "${table}" set
  "today" = case when "day" = ?::date then "today" + ? else "today" end, "total" = "total" + ? where ${keyWhere(columns)}`;

/** Creates the counter unless it exists. */
export async function openCounter(tx: EntityManager, of: CounterOf) {
  const { table, columns, values } = counterKey(of);
  await tx.execute(openCounterSql(table, columns), values);
}

const lockAutomationCounterSql = `select ${todayOf} as "today", "total" from "automation_gas_spend"
  where "automation_id" = ? for update`;
const lockAccountCounterSql = `select ${todayOf} as "today", "total" from "account_gas_spend"
  where "account_id" = ? and "network" = ? and "signer_id" = ? for update`;

/** The counter, its row locked: what its automation or signer spent today and in all. */
export async function lockCounter(tx: EntityManager, of: CounterOf) {
  const [counter] = await tx.execute<{ today: string; total: string }[]>(
    'automation' in of ? lockAutomationCounterSql : lockAccountCounterSql,
    counterKey(of).values,
  );
  return { today: BigInt(counter!.today), total: BigInt(counter!.total) };
}

/** Adds `fee` to today's and the total of the counter. */
export async function addToCounter(tx: EntityManager, of: CounterOf, fee: bigint) {
  const { table, columns, values } = counterKey(of);
  await tx.execute(addSql(table, columns), [fee, fee, ...values]);
}

/** Moves the counter by `change`, today's only if `day` is still today. */
export async function changeCounter(tx: EntityManager, of: CounterOf, day: string, change: bigint) {
  const { table, columns, values } = counterKey(of);
  await tx.execute(changeSql(table, columns), [day, change, change, ...values]);
}

/** A run as a reservation of its GAS reads it, with the budgets of its automation and account. */
interface RunToReserve {
  automation_id: string;
  account_id: string;
  /** Its automation's: whose network's account counter it moves. */
  network: string;
  /** The signer whose account counter it moves: the run's, else its automation's, else the account's default. */
  signer_id: string;
  status: RunStatus;
  sent: boolean;
  automation_budget: Budget | null;
  account_budget: Budget | null;
  /** The signer's own, for its spend on each network. */
  signer_budget: Budget | null;
}

/** The run, its row locked, with the budgets of its automation, account and signer (as signerOrDefault finds it). */
const lockRunSql = `select r."automation_id", r."account_id", a."network", s."id" as "signer_id", r."status",
  r."tx_raw" is not null as "sent",
  a."budget" as "automation_budget", acc."budget" as "account_budget", s."budget" as "signer_budget"
from "automation_runs" r
join "automations" a on a."id" = r."automation_id"
join "accounts" acc on acc."id" = r."account_id"
left join "signers" s on s."id" = coalesce(r."signer_id", a."signer_id")
  or (r."signer_id" is null and a."signer_id" is null and s."account_id" = r."account_id" and s."name" = ?)
where r."id" = ? for update of r`;

export async function lockRunToReserve(tx: EntityManager, runId: string): Promise<RunToReserve | undefined> {
  const [run] = await tx.execute<RunToReserve[]>(lockRunSql, [defaultSignerName, runId]);
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
  reservation: {
    runId: string;
    txHash: string;
    automationId: string;
    accountId: string;
    signerId: string;
    amount: bigint;
  },
) {
  const { runId, txHash, automationId, accountId, signerId, amount } = reservation;
  await tx.execute(
    `insert into "gas_reservations" ("run_id", "tx_hash", "automation_id", "account_id", "signer_id", "amount", "day")
      values (?, ?, ?, ?, ?, ?, ${utcToday})`,
    [runId, txHash, automationId, accountId, signerId, amount],
  );
}

/** A reservation still held, beside its run as the run's row stands. */
export interface ReservationRow {
  run_id: string;
  tx_hash: string;
  automation_id: string;
  account_id: string;
  /** Its automation's network. */
  network: string;
  /** Whose account counter it moved; null once that signer was deleted, its counters with it. */
  signer_id: string | null;
  amount: string;
  day: string;
  run_status: RunStatus | null;
  run_tx_hash: string | null;
  system_fee: string | null;
  network_fee: string | null;
  error_name: string | null;
}

const reservationsSql = (where: string) => `select g."run_id", g."tx_hash", g."automation_id", g."account_id",
  a."network", g."signer_id", g."amount", g."day"::text as "day", r."status" as "run_status", r."tx_hash" as "run_tx_hash",
  r."system_fee", r."network_fee", r."error"->>'name' as "error_name"
from "gas_reservations" g join "automations" a on a."id" = g."automation_id"
  left join "automation_runs" r on r."id" = g."run_id"
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

/** Whose spend a read sums: an automation's, an account's on one network, or one signer's there. */
type SpendOf = { automation: string } | { account: string; network: string } | { signer: string; network: string };

/** The counters' table and the columns a read of `of` filters on, the same for its reservations. */
function spendKey(of: SpendOf) {
  if ('automation' in of) return { table: 'automation_gas_spend', columns: ['automation_id'], values: [of.automation] };
  return 'account' in of
    ? { table: 'account_gas_spend', columns: ['account_id', 'network'], values: [of.account, of.network] }
    : { table: 'account_gas_spend', columns: ['signer_id', 'network'], values: [of.signer, of.network] };
}

/** What its reservations still hold: the network is the automation's, the rest the reservation's own. */
const reservedSql = (columns: string[]) => `select coalesce(sum(g."amount"), 0) from "gas_reservations" g
  join "automations" a on a."id" = g."automation_id"
  where g."state" = 'reserved' and ${columns.map((column) => `${column === 'network' ? 'a' : 'g'}."${column}" = ?`).join(' and ')}`;

/** Summed over the counters `of` covers: an account's are one per signer. */
const spendSql = (table: string, columns: string[]) => `select
  (select coalesce(sum(${todayOf}), 0) from "${table}" where ${keyWhere(columns)}) as "today",
  (select coalesce(sum("total"), 0) from "${table}" where ${keyWhere(columns)}) as "total",
  (${reservedSql(columns)}) as "reserved"`;

/** What the owner of `of` spent today and in all, and holds reserved, in GAS fractions. */
export async function spendRow(em: EntityManager, of: SpendOf) {
  const { table, columns, values } = spendKey(of);
  const [row] = await em.execute<{ today: string; total: string; reserved: string }[]>(spendSql(table, columns), [
    ...values,
    ...values,
    ...values,
  ]);
  return { today: BigInt(row!.today), total: BigInt(row!.total), reserved: BigInt(row!.reserved) };
}
