import pg from 'pg';
import { perSecond, progress, runConcurrent } from './measure.ts';
import { apiClient } from './scratch-stack.ts';

interface Envelope {
  data?: Record<string, unknown>;
}

/** What two accounts bursting at once got of the worker's run slots. */
export interface TwoAccountsRound {
  /** Both bursts' runs ended per second, from the first request until the last run ended. */
  rate: number;
  /** Of the runs ended when the first account's burst had all ended, the share of each account. */
  shares: [number, number];
}

/**
 * Two accounts each send half of `total` asynchronous invokes, at concurrency 32 each, at the same
 * time: how fast both end, and whether the slots were shared (each account's share of the runs
 * ended by the time the first account's last one did; an equal share is 50 %).
 */
export async function measureTwoAccounts(
  stack: { apiUrl: string; databaseUrl: string },
  accounts: [{ apiKey: string; functionId: string }, { apiKey: string; functionId: string }],
  total: number,
  round: number,
): Promise<TwoAccountsRound> {
  const each = Math.floor(total / 2);
  const db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const ended = async () => {
      const { rows } = await db.query<{ function_id: string; count: string }>(
        `select function_id, count(*) as count from executions
          where function_id = any($1) and status <> 'running' group by function_id`,
        [accounts.map((account) => account.functionId)],
      );
      const of = (functionId: string) => Number(rows.find((row) => row.function_id === functionId)?.count ?? 0);
      return accounts.map((account) => of(account.functionId)) as [number, number];
    };
    const began = performance.now();
    const bursts = accounts.map(({ apiKey, functionId }) => {
      const call = apiClient<Envelope>({ apiUrl: stack.apiUrl, apiKey });
      return runConcurrent(each, 32, async (x) => {
        const invoked = await call('POST', `/functions/${functionId}/invoke`, { params: { x }, async: true });
        if (invoked.status !== 202) throw new Error(`async invoke answered ${invoked.status}`);
      });
    });
    let atFirstDone: [number, number] | undefined;
    for (let counts = await ended(); counts[0] < each || counts[1] < each; counts = await ended()) {
      if (!atFirstDone && (counts[0] >= each || counts[1] >= each)) atFirstDone = counts;
      if (performance.now() - began > 240_000) throw new Error(`only ${counts.join(' and ')} runs ended after 240 s`);
      await new Promise((resolveWait) => setTimeout(resolveWait, 20));
    }
    await Promise.all(bursts);
    const rate = (2 * each) / ((performance.now() - began) / 1000);
    // Both ended within the same 20 ms poll: as even as it can be measured.
    const split = atFirstDone ?? [each, each];
    const shares: [number, number] = [split[0] / (split[0] + split[1]), split[1] / (split[0] + split[1])];
    progress(
      `round ${round} two accounts: ${perSecond(rate)}, shares ${shares.map((share) => `${(share * 100).toFixed(0)} %`).join(' / ')}`,
    );
    return { rate, shares };
  } finally {
    await db.end();
  }
}
