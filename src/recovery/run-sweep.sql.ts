import { sweepPage } from '../db/sweep-page.ts';
import { runStatus } from '../shared/outcomes.ts';

/** A running run as the recovery sweep pages through them. */
export interface RunningRunRow {
  id: string;
  cursor_at: string;
  account_id: string;
  automation_id: string;
  trigger_type: string;
  retry_of: string | null;
  execution_id: string | null;
  holds_transaction: boolean;
  /** Approved or rejected, yet unsigned: its workflow may have missed the signal. */
  approval_decided: boolean;
}

/** Running runs that started before the grace, in the order of their partial index. */
const runningPageSql = `select "id", "started_at"::text as "cursor_at", "account_id", "automation_id",
  "trigger"->>'type' as "trigger_type", "retry_of", "execution_id", "tx_raw" is not null as "holds_transaction",
  coalesce("approval"->>'status' in ('approved', 'rejected') and "tx_raw" is null, false) as "approval_decided"
from "automation_runs"
where "status" = '${runStatus.running}' and "started_at" < now() - make_interval(secs => ?)
  and ("started_at", "id") > (cast(? as timestamptz), ?)
order by "started_at", "id" limit ?`;

/** Up to `limit` of them after the keyset (`at`, `id`). */
export const runningRunsPage = sweepPage<RunningRunRow>(runningPageSql);
