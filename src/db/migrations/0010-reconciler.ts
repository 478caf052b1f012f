import { Migration } from '@mikro-orm/migrations';

/**
 * What the reconciler pages through: running executions and runs in the order they started (a
 * keyset over an index holding only them), and the triggers that deleted or retyped automations
 * leave in Temporal.
 */
export class Reconciler extends Migration {
  override up(): void {
    this.addSql(
      `create index "executions_running_index" on "executions" ("started_at", "id") where "status" = 'running';`,
    );
    this.addSql(
      `create index "automation_runs_running_index" on "automation_runs" ("started_at", "id") where "status" = 'running';`,
    );
    // The run that holds an automation's execution: its workflow is the run's.
    this.addSql(
      `create index "automation_runs_execution_id_index" on "automation_runs" ("execution_id") where "execution_id" is not null;`,
    );
    // A trigger the row no longer has (the automation deleted, its account with it, or its trigger
    // type changed), recorded by PostgreSQL in the same transaction: whatever path removed it, the
    // reconciler stops what Temporal still runs for it.
    this.addSql(`create table "automation_trigger_removals" (
      "automation_id" varchar(255) not null,
      "trigger_type" varchar(16) not null,
      "recorded_at" timestamptz not null default now(),
      primary key ("automation_id", "trigger_type"));`);
    this.addSql(`create function "record_automation_trigger_removal"() returns trigger language plpgsql as $$
      begin
        insert into "automation_trigger_removals" ("automation_id", "trigger_type")
        values (old."id", old."trigger_type") on conflict do nothing;
        return null;
      end $$;`);
    this.addSql(`create trigger "automations_trigger_removed" after delete on "automations"
      for each row execute function "record_automation_trigger_removal"();`);
    this.addSql(`create trigger "automations_trigger_retyped" after update of "trigger_type" on "automations"
      for each row when (old."trigger_type" is distinct from new."trigger_type")
      execute function "record_automation_trigger_removal"();`);
  }
}
