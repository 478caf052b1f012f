import { Migration } from '@mikro-orm/migrations';

/**
 * Automations' notification rules, and one row per notification: what it says, where it goes and
 * how its delivery went. A cause (`event_key`) is told once per rule: the unique index is what
 * makes a repeated step record nothing new.
 */
export class Notifications extends Migration {
  override up(): void {
    this.addSql(`alter table "automations" add column "notify" jsonb not null default '[]';`);
    // The low_gas rules (by index) whose threshold the signer was under at the last check.
    this.addSql(`alter table "automations" add column "gas_below" jsonb not null default '[]';`);
    this.addSql(`create table "notifications" (
      "id" varchar(255) not null primary key,
      "automation_id" varchar(255) not null
        constraint "notifications_automation_id_foreign" references "automations" ("id") on delete cascade,
      "account_id" varchar(255) not null,
      "run_id" varchar(255) null,
      "rule" int not null,
      "event" varchar(16) not null,
      "event_key" varchar(255) not null,
      "channel" jsonb not null,
      "message" jsonb not null,
      "status" varchar(16) not null,
      "attempts" int not null default 0,
      "last_status" int null,
      "last_error" text null,
      "dispatched" boolean not null default false,
      "created_at" timestamptz not null,
      "completed_at" timestamptz null);`);
    this.addSql(
      `create unique index "notifications_cause_unique" on "notifications" ("automation_id", "rule", "event_key");`,
    );
    this.addSql(`create index "notifications_run_id_index" on "notifications" ("run_id") where "run_id" is not null;`);
    // The recovery sweep looks for notifications recorded whose delivery never started.
    this.addSql(
      `create index "notifications_undispatched_index" on "notifications" ("created_at") where not "dispatched";`,
    );
  }
}
