import { Migration } from '@mikro-orm/migrations';

/**
 * Each invoke counts its account's executions not yet ended (the queued-executions quota): a
 * partial index holds only those, so the count never reads an account's history.
 */
export class RunningExecutions extends Migration {
  override up(): void {
    this.addSql(
      `create index "executions_account_id_running_index" on "executions" ("account_id") where "status" = 'running';`,
    );
  }
}
