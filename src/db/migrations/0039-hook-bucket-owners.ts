import { Migration } from '@mikro-orm/migrations';

/**
 * A hook's rate buckets (`hook_rate_buckets`, keyed `automation:<id>` and `account:<id>`) go with
 * their automation or account, as an API key's go with the key: the id in the key, as a generated
 * column, references its owner, deleted with it by the cascade (one index probe), so the table
 * holds no bucket of anything gone. The statement that takes a token writes `key_id` alone and is
 * unchanged; the reference is checked only when a bucket is first made (an update leaves the ids
 * as they were). The table is emptied first, as a crash of the database empties it (unlogged):
 * every bucket refills once, and none of an automation deleted before is left to fail the
 * reference.
 */
export class HookBucketOwners extends Migration {
  override up(): void {
    this.addSql(`truncate table "hook_rate_buckets";`);
    this.addSql(`alter table "hook_rate_buckets"
      add column "automation_id" varchar(255) generated always as
        (case when "key_id" like 'automation:%' then substr("key_id", 12) end) stored
        constraint "hook_rate_buckets_automation_id_foreign" references "automations" ("id") on delete cascade,
      add column "account_id" varchar(255) generated always as
        (case when "key_id" like 'account:%' then substr("key_id", 9) end) stored
        constraint "hook_rate_buckets_account_id_foreign" references "accounts" ("id") on delete cascade;`);
    this.addSql(`create index "hook_rate_buckets_automation_id_index" on "hook_rate_buckets" ("automation_id")
      where "automation_id" is not null;`);
    this.addSql(`create index "hook_rate_buckets_account_id_index" on "hook_rate_buckets" ("account_id")
      where "account_id" is not null;`);
  }
}
