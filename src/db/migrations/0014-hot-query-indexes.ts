import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for the queries run on every run's end, every keyed request and every read of
 * statistics, so that each reads what it needs rather than an automation's or an account's whole
 * history.
 */
export class HotQueryIndexes extends Migration {
  override up(): void {
    // A run's end with failure rules finds where its streak began and ended (the nearest ends that
    // were not failures), then counts the failures between, up to the longest streak a rule awaits.
    this.addSql(
      `create index "automation_runs_failures_index" on "automation_runs" ("automation_id", "completed_at", "id") where "status" = 'failure';`,
    );
    this.addSql(
      `create index "automation_runs_streak_breaks_index" on "automation_runs" ("automation_id", "completed_at", "id") where "status" <> 'running' and "status" <> 'failure';`,
    );
    // An automation's statistics count its runs by status: from the index alone, as the list reads it.
    this.addSql(
      `create index "automation_runs_automation_id_started_at_status_index" on "automation_runs" ("automation_id", "started_at" desc) include ("status");`,
    );
    this.addSql(`drop index "automation_runs_automation_id_started_at_index";`);
    // Every keyed request drops its account's expired keys: those only, not every key it holds.
    this.addSql(
      `create index "idempotent_requests_account_id_claimed_at_index" on "idempotent_requests" ("account_id", "claimed_at");`,
    );
  }
}
