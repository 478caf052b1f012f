/**
 * budget/: the GAS an automation and its account may spend. A transaction's fee is reserved here
 * before it is signed, then settled or released (budget-rules.ts decides which, from the run's
 * row); gas-spend.sql.ts keeps the counters; budget.view.ts answers what may still be spent.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  budgetInForce,
  fateOf,
  refusalOf,
  signerBudgetInForce,
  type BudgetFrom,
  type Refusal,
  type ReservationBeside,
  type Spent,
} from './budget-rules.ts';
import {
  addToCounter,
  changeCounter,
  endReservation,
  insertReservation,
  lockCounter,
  lockReservations,
  lockRunToReserve,
  openCounter,
  reservationHeld,
  spendRow,
  type ReservationRow,
} from './gas-spend.sql.ts';
import { runStatus } from '../../shared/outcomes.ts';

/**
 * GAS spending (the statements in gas-spend.sql.ts): a reservation and every change of it move
 * the counters in the same transaction, the automation's counter row locked first, its signer's
 * (on the network) next: of the prepares of one automation, or of one signer's automations, at
 * once, each sees what the ones before it reserved. No lock
 * outlives the statements here (no call to the chain or Temporal meanwhile).
 */

type Reserved =
  /** The run ended, or holds a transaction already: nothing was reserved. */
  | { kind: 'ended' }
  | { kind: 'reserved' }
  | { kind: 'refused'; refusal: Refusal; from: BudgetFrom; automationId: string };

/**
 * Reserves `call.fee` for the run's transaction `call.hash` against the budgets in force (the
 * automation's, else its account's default, over what the automation spent; and its signer's,
 * else its account's, over what the signer spent on the network), or answers the first limit it
 * would pass. A repeated
 * reservation of the same transaction reserves nothing more. A run holds one reservation: that of
 * an earlier attempt that priced another transaction and never stored it (it died, or timed out)
 * is released first, so it never counts against its own retry; storeTransaction stores only a
 * transaction whose reservation is held. The counters move without a budget too: the account's
 * spend is shown either way.
 */
export async function reserve(
  em: EntityManager,
  runId: string,
  call: { hash: string; fee: bigint },
): Promise<Reserved> {
  return em.transactional(async (tx) => {
    const run = await lockRunToReserve(tx, runId);
    if (!run || run.status !== runStatus.running || run.sent) return { kind: 'ended' };
    if (await reservationHeld(tx, runId, call.hash)) return { kind: 'reserved' };
    await releaseUnstored(tx, runId);
    // What ended runs still hold (their step ended before settling) is settled first: it may free room.
    await settle(tx, 'ofEndedRuns', run.automation_id);
    const automationCounter = { automation: run.automation_id };
    // The account's counter of the automation's network (GAS of one network is not GAS of another) and of its signer.
    const accountCounter = { account: run.account_id, network: run.network, signer: run.signer_id };
    const limits = [
      { counter: automationCounter, inForce: budgetInForce(run.automation_budget, run.account_budget) },
      { counter: accountCounter, inForce: signerBudgetInForce(run.signer_budget) },
    ];
    for (const { counter, inForce } of limits) {
      await openCounter(tx, counter);
      const refusal = inForce && refusalOf(inForce.budget, await lockCounter(tx, counter), call.fee);
      if (refusal) return { kind: 'refused', refusal, from: inForce.from, automationId: run.automation_id };
    }
    await addToCounter(tx, automationCounter, call.fee);
    await addToCounter(tx, accountCounter, call.fee);
    const { automation_id: automationId, account_id: accountId, signer_id: signerId } = run;
    await insertReservation(tx, { runId, txHash: call.hash, automationId, accountId, signerId, amount: call.fee });
    return { kind: 'reserved' };
  });
}

/**
 * Brings the run's reservations in line with its row, after a step that stored its transaction or
 * ended it (fateOf): settled from the chain's fees once in a block, released when rejected,
 * expired or never stored. Safe to repeat.
 */
export async function settleReservationsOf(em: EntityManager, runId: string) {
  await em.transactional((tx) => settle(tx, 'ofRun', runId));
}

/**
 * Releases what the run holds reserved, while it holds no transaction (its row locked by `reserve`):
 * each reservation is of a transaction an earlier attempt priced and never stored.
 */
async function releaseUnstored(tx: EntityManager, runId: string) {
  for (const row of await lockReservations(tx, 'ofRun', runId)) await endHeld(tx, row, 'release');
}

async function settle(tx: EntityManager, of: 'ofRun' | 'ofEndedRuns', id: string) {
  const rows = await lockReservations(tx, of, id);
  for (const row of rows) {
    const fate = fateOf(besideOf(row));
    if (fate === 'keep') continue;
    await endHeld(tx, row, fate === 'release' ? fate : fate.settle);
  }
}

/** Ends a held reservation, released or settled at what the chain says was spent; the counters follow. */
async function endHeld(tx: EntityManager, row: ReservationRow, end: 'release' | bigint) {
  const change = (end === 'release' ? 0n : end) - BigInt(row.amount);
  if (end === 'release') await endReservation(tx, row, 'released', row.amount);
  else await endReservation(tx, row, 'settled', end);
  if (change === 0n) return;
  await changeCounter(tx, { automation: row.automation_id }, row.day, change);
  if (row.signer_id === null) return;
  await changeCounter(tx, { account: row.account_id, network: row.network, signer: row.signer_id }, row.day, change);
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
interface SpendFigures extends Spent {
  reserved: bigint;
}

export const automationSpend = (em: EntityManager, automationId: string): Promise<SpendFigures> =>
  spendRow(em, { automation: automationId });

/** What the account's automations of `network` spent and hold reserved, all its signers together. */
export const accountSpend = (em: EntityManager, accountId: string, network: string): Promise<SpendFigures> =>
  spendRow(em, { account: accountId, network });

/** What the signer's transactions on `network` cost and hold reserved. */
export const signerSpend = (em: EntityManager, signerId: string, network: string): Promise<SpendFigures> =>
  spendRow(em, { signer: signerId, network });
