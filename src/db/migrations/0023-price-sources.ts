import { Migration } from '@mikro-orm/migrations';

/**
 * Price triggers read once per source (issue 34): `price_source` names the source an automation
 * reads (a digest: a custom source's URL is a sealed credential), so that one poller per source
 * finds its automations; `price_trigger_states` holds what each trigger decided at its last
 * evaluation, which the per-automation poller kept in its workflow's arguments. `condition_key`
 * names the condition the state was decided for: a state left by another is ignored. Rows of
 * price automations written before this have no source yet: the reconciler names it.
 */
export class PriceSources extends Migration {
  override up(): void {
    this.addSql(`alter table "automations" add column "price_source" varchar(64) null;`);
    this.addSql(`create index "automations_price_source_index" on "automations" ("price_source")
      where "status" = 'active' and "trigger_type" = 'price';`);
    this.addSql(`create table "price_trigger_states" (
      "automation_id" varchar(255) not null primary key references "automations" ("id") on delete cascade,
      "condition_key" text not null,
      "armed" boolean not null,
      "failures" int not null default 0,
      "failing_since" timestamptz null,
      "checked_at" timestamptz not null,
      "poll_key" text not null
    );`);
  }
}
