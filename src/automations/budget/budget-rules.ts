import { gasText, gasUnits } from '../../chain/gas-amount.ts';
import type { Budget } from '../../chain/gas-budget.ts';
import { runErrorName, runStatus } from '../../shared/outcomes.ts';

/** The budget a run of the automation is held to: its own, else its account's default, else none. */
export function budgetInForce(own: Budget | null, accountDefault: Budget | null) {
  if (own) return { budget: own, from: 'automation' as const };
  if (accountDefault) return { budget: accountDefault, from: 'account' as const };
  return null;
}

/**
 * The budget a signer's spend on one network is held to, all its automations together: its own, or
 * none. It holds beside each automation's (budgetInForce). The account's default is never a pool:
 * it stays a bound of each automation's own spend, as it was before signers.
 */
export function signerBudgetInForce(own: Budget | null) {
  return own ? { budget: own, from: 'signer' as const } : null;
}

/** Whose budget refused a fee: the automation's (its own, or its account's default), or its signer's. */
export type BudgetFrom = 'automation' | 'account' | 'signer';

/** What an automation or a signer spent (landed and reserved), in GAS fractions: today (a UTC day) and in all. */
export interface Spent {
  today: bigint;
  total: bigint;
}

type Limit = keyof Budget;

/** A fee the budget refuses: the limit it would pass, and the figures that say so. */
export interface Refusal {
  limit: Limit;
  fee: bigint;
  allowed: bigint;
  /** What counts against the limit already: 0 for perRun. */
  spent: bigint;
}

/** The first limit that `fee` would pass, given what was spent; null when the budget allows it. */
export function refusalOf(budget: Budget, spent: Spent, fee: bigint): Refusal | null {
  const counted: Record<Limit, bigint> = { perRun: 0n, perDay: spent.today, total: spent.total };
  for (const limit of ['perRun', 'perDay', 'total'] as const) {
    const text = budget[limit];
    if (text === undefined) continue;
    const allowed = gasUnits(text);
    if (counted[limit] + fee > allowed) return { limit, fee, allowed, spent: counted[limit] };
  }
  return null;
}

/** A refusal's perDay or total: the automation can send nothing more until the budget changes (or the day). */
export const exhausts = (refusal: Refusal) => refusal.limit !== 'perRun';

const limitNames: Record<Limit, string> = { perRun: 'per run', perDay: 'per day (UTC)', total: 'in total' };

const whose: Record<BudgetFrom, string> = {
  automation: "the automation's budget",
  account: "the account's default budget",
  signer: "the signer's budget (its spend on this network)",
};

/** The figures of a refusal, for the run's error and the automation's details. */
export function refusalMessage(refusal: Refusal, from: BudgetFrom): string {
  const fee = `The transaction would cost ${gasText(refusal.fee)} GAS (system fee plus network fee)`;
  if (refusal.limit === 'perRun') return `${fee}; ${whose[from]} allows ${gasText(refusal.allowed)} GAS per run.`;
  const left = refusal.allowed > refusal.spent ? refusal.allowed - refusal.spent : 0n;
  return (
    `${fee}; ${whose[from]} allows ${gasText(refusal.allowed)} GAS ${limitNames[refusal.limit]}, ` +
    `of which ${gasText(refusal.spent)} GAS is spent or reserved: ${gasText(left)} GAS left.`
  );
}

/** What is left of `allowed` after `spent`, as GAS text; null without that limit. */
export function leftOf(allowed: string | undefined, spent: bigint): string | null {
  if (allowed === undefined) return null;
  const left = gasUnits(allowed) - spent;
  return gasText(left > 0n ? left : 0n);
}

/** A reservation as it stands beside its run (null when the run is gone). */
export interface ReservationBeside {
  txHash: string;
  run: {
    status: typeof runStatus.running | typeof runStatus.success | typeof runStatus.failure;
    txHash: string | null;
    systemFee: string | null;
    networkFee: string | null;
    errorName: string | null;
  } | null;
}

/** The chain's answers that prove a sent transaction was never in a block and never will be. */
const neverLanded = new Set<string>([runErrorName.TransactionRejected, runErrorName.TransactionExpired]);

/**
 * What becomes of a reservation, from its run's row: `settle` at what the chain says the
 * transaction burned once it is in a block; `release` when its transaction was never stored (a
 * stale attempt's, or the run ended unsent) or the chain refused it or let it expire; else `keep`
 * (its transaction may still land: counted as spent at the reserved figure).
 */
export function fateOf(reservation: ReservationBeside): { settle: bigint } | 'release' | 'keep' {
  const { run } = reservation;
  if (!run) return 'keep';
  if (run.txHash !== reservation.txHash)
    return run.txHash !== null || run.status !== runStatus.running ? 'release' : 'keep';
  if (run.systemFee !== null && run.networkFee !== null)
    return { settle: BigInt(run.systemFee) + BigInt(run.networkFee) };
  if (run.status !== runStatus.running && run.errorName !== null && neverLanded.has(run.errorName)) return 'release';
  return 'keep';
}
