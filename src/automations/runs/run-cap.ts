import type { Firing } from './fires.ts';
import { runErrorName } from '../../shared/outcomes.ts';

/**
 * One read of a shared loop (a block the follower reads, a poll of a price source) records at
 * most `perAccount` runs of each account to start (NEOFLOW_ACCOUNT_RUNS_PER_READ). Those beyond
 * are recorded too, once per cause as any run, but ended: failed with `RunLimitExceeded` and its
 * reason, so that the owner sees each in the automation's runs, is told by its `failure` rules,
 * and may retry it; none is started. The first firings in the read's order are kept. A firing
 * already ended (quarantined) starts nothing and counts for nothing.
 */
export function capPerAccount(firings: Firing[], perAccount: number, read: string): Firing[] {
  const started = new Map<string, number>();
  return firings.map((firing) => {
    if (firing.error) return firing;
    const account = firing.automation.account.id;
    const count = started.get(account) ?? 0;
    if (count < perAccount) {
      started.set(account, count + 1);
      return firing;
    }
    const message =
      `${read} fired more than ${perAccount} runs of this account's automations; this one was recorded ` +
      'without starting its action (NEOFLOW_ACCOUNT_RUNS_PER_READ).';
    return { ...firing, error: { name: runErrorName.RunLimitExceeded, message } };
  });
}

/** Whether a firing was refused by `capPerAccount`: its run is recorded ended, and no action starts. */
export const refusedByCap = (firing: Firing) => firing.error?.name === runErrorName.RunLimitExceeded;
