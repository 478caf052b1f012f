import { Migration } from '@mikro-orm/migrations';

/**
 * The running replays of an account, counted each time it starts one (at most
 * NEOFLOW_ACCOUNT_REPLAYS run at once, issue 44): read from a small partial index, not from every
 * running replay of every account.
 */
export class ReplaysPerAccount extends Migration {
  override up(): void {
    this.addSql(`create index "automation_replays_account_running_index"
      on "automation_replays" ("account_id") where "status" = 'running';`);
  }
}
