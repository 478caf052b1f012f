import { Migration } from '@mikro-orm/migrations';

export class Automations extends Migration {
  override up(): void {
    this.addSql(`create table "automations" (
      "id" varchar(255) not null primary key,
      "account_id" varchar(255) not null
        constraint "automations_account_id_foreign" references "accounts" ("id") on delete cascade,
      "name" varchar(128) not null,
      "status" varchar(16) not null,
      "trigger_type" varchar(16) not null,
      "trigger" jsonb not null,
      "action" jsonb not null,
      "function_id" varchar(255) null,
      "watch_from_block" int null,
      "error_details" jsonb null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(
      `create index "automations_account_id_created_at_index" on "automations" ("account_id", "created_at" desc);`,
    );
    // The block follower reads the active blockchain automations for every batch of blocks.
    this.addSql(
      `create index "automations_active_trigger_type_index" on "automations" ("trigger_type") where "status" = 'active';`,
    );
    this.addSql(`create index "automations_function_id_index" on "automations" ("function_id");`);
    this.addSql(`create table "automation_runs" (
      "id" varchar(255) not null primary key,
      "automation_id" varchar(255) not null
        constraint "automation_runs_automation_id_foreign" references "automations" ("id") on delete cascade,
      "account_id" varchar(255) not null,
      "fire_key" varchar(255) not null,
      "status" varchar(16) not null,
      "trigger" jsonb not null,
      "retry_of" varchar(255) null,
      "dispatched" boolean not null,
      "execution_id" varchar(255) null,
      "tx_hash" varchar(66) null,
      "tx_raw" text null,
      "valid_until_block" int null,
      "vm_state" varchar(8) null,
      "gas_consumed" varchar(32) null,
      "error" jsonb null,
      "started_at" timestamptz not null,
      "completed_at" timestamptz null,
      "duration" int null,
      constraint "automation_runs_automation_id_fire_key_unique" unique ("automation_id", "fire_key"));`);
    this.addSql(
      `create index "automation_runs_automation_id_started_at_index" on "automation_runs" ("automation_id", "started_at" desc);`,
    );
    this.addSql(
      `create index "automation_runs_undispatched_index" on "automation_runs" ("started_at") where not "dispatched";`,
    );
    this.addSql(`create table "block_cursors" (
      "network" varchar(32) not null primary key,
      "next_index" int not null,
      "updated_at" timestamptz not null);`);
  }
}
