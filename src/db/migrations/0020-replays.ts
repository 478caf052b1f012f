import { Migration } from '@mikro-orm/migrations';

/**
 * Replays (issue 31): a block range matched again with an automation's trigger, its progress and
 * outcome held on its row (the truth the reconciler converges its workflow to); at most one
 * running per automation, by a partial unique index. `listed`: a dry run's matches, capped.
 * `followed_until`: where the follower stood when a blockchain automation stopped being active,
 * so that `resumeFrom: 'lastProcessed'` replays what it did not watch; set by PostgreSQL on every
 * way out of `active` (a PATCH, an error stop, a budget), none of which can forget it.
 */
export class Replays extends Migration {
  override up(): void {
    this.addSql(`create table "automation_replays" (
      "id" varchar(255) not null primary key,
      "automation_id" varchar(255) not null
        constraint "automation_replays_automation_id_foreign" references "automations" ("id") on delete cascade,
      "account_id" varchar(255) not null,
      "from_block" integer not null,
      "to_block" integer not null,
      "next_block" integer not null,
      "dry_run" boolean not null,
      "status" varchar(16) not null default 'running',
      "matches" integer not null default 0,
      "runs_started" integer not null default 0,
      "listed" jsonb not null default '[]',
      "error" jsonb null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      "completed_at" timestamptz null,
      constraint "automation_replays_status_check" check ("status" in ('running', 'completed', 'failed')));`);
    this.addSql(`create unique index "automation_replays_one_running_index"
      on "automation_replays" ("automation_id") where "status" = 'running';`);
    this.addSql(`create index "automation_replays_running_index"
      on "automation_replays" ("created_at", "id") where "status" = 'running';`);
    this.addSql(`alter table "automations" add column "followed_until" integer null;`);
    this.addSql(`create function "automations_followed_until"() returns trigger language plpgsql as $$
      begin
        new."followed_until" := greatest((select max("next_index") from "block_cursors"), new."watch_from_block");
        return new;
      end $$;`);
    this.addSql(`create trigger "automations_followed_until" before update of "status" on "automations"
      for each row when (old."status" = 'active' and new."status" <> 'active' and new."trigger_type" = 'blockchain')
      execute function "automations_followed_until"();`);
  }
}
