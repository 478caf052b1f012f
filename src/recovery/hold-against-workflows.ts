import type { Client } from '@temporalio/client';
import type { Logger } from '../log.ts';
import { callsInFlight, nextKeyset, type SweptPage } from './keyset.ts';
import { logCause, mapBounded, workflowState, type WorkflowState } from './workflow-state.ts';

/** What a sweep made of one row: its workflow handed back to be started, the row ended now, or neither. */
type RowSettled<T> = { start: T } | 'ended' | undefined;

/**
 * Holds each row of a page against its workflow (named by the row's id unless `workflowIdOf`
 * says otherwise), logs what a failed one raised, and lets `settle` decide for the row; answers
 * what the reconciler starts, how many rows were ended, and where the next page starts.
 */
export async function holdAgainstWorkflows<Row extends { id: string; cursor_at: string }, T>(
  client: Client,
  log: Pick<Logger, 'warn'>,
  rows: Row[],
  settle: (row: Row, state: WorkflowState) => Promise<RowSettled<T>>,
  workflowIdOf: (row: Row) => string = (row) => row.id,
): Promise<SweptPage<T>> {
  const states = await mapBounded(rows, callsInFlight, (row) => workflowState(client, workflowIdOf(row)));
  const unstarted: T[] = [];
  let finished = 0;
  for (const [index, row] of rows.entries()) {
    const state = states[index]!;
    logCause(log, row.id, state);
    const settled = await settle(row, state);
    if (settled === 'ended') finished += 1;
    else if (settled) unstarted.push(settled.start);
  }
  return { unstarted, finished, next: nextKeyset(rows) };
}
