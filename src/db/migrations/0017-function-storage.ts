import { Migration } from '@mikro-orm/migrations';

/**
 * A key-value store per function (issue 30): each value sealed like an execution's result, with
 * the version compare-and-set checks and its size for the quotas. Keys sort bytewise (`C`), the
 * order the list pages in and the run's buffered keys merge in. An execution records the keys its
 * run read and wrote.
 */
export class FunctionStorage extends Migration {
  override up(): void {
    this.addSql(`create table "function_storage" (
      "function_id" varchar(255) not null
        constraint "function_storage_function_id_foreign" references "functions" ("id") on delete cascade,
      "key" varchar(256) collate "C" not null,
      "version" int not null,
      "size" int not null,
      "ciphertext" bytea not null,
      "wrapped_key" bytea not null,
      "master_key_id" varchar(16) not null,
      "updated_at" timestamptz not null,
      constraint "function_storage_pkey" primary key ("function_id", "key"));`);
    this.addSql(`create index "function_storage_master_key_id_index" on "function_storage" ("master_key_id");`);
    this.addSql(`alter table "executions" add column "storage_keys" jsonb null;`);
  }
}
