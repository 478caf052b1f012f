import { Migration } from '@mikro-orm/migrations';

/**
 * State-threshold triggers (issue 31): what the block follower last saw of each one, written in the
 * transaction that moves its cursor, so that a restart neither fires a crossing again nor misses
 * one. `condition_key` names the trigger (and its activation) the mark was decided for: a mark
 * left by another is ignored.
 */
export class StateTriggers extends Migration {
  override up(): void {
    this.addSql(`create table "state_trigger_marks" (
      "automation_id" varchar(255) not null primary key references "automations" ("id") on delete cascade,
      "condition_key" text not null,
      "armed" boolean not null,
      "last_value" text null,
      "evaluated_block" int not null,
      "failing" boolean not null default false,
      "updated_at" timestamptz not null default now()
    );`);
  }
}
