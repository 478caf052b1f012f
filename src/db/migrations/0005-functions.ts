import { Migration } from '@mikro-orm/migrations';

export class Functions extends Migration {
  override up(): void {
    this.addSql(`create table "functions" (
      "id" varchar(255) not null primary key,
      "account_id" varchar(255) not null
        constraint "functions_account_id_foreign" references "accounts" ("id") on delete cascade,
      "name" varchar(64) not null,
      "description" text null,
      "runtime" varchar(16) not null,
      "timeout" int not null,
      "code" text not null,
      "status" varchar(16) not null,
      "tags" text[] not null,
      "environment" jsonb not null,
      "secrets" text[] not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "functions_account_id_name_unique" unique ("account_id", "name"));`);
    this.addSql(
      `create index "functions_account_id_created_at_index" on "functions" ("account_id", "created_at" desc);`,
    );
    this.addSql(`create index "functions_tags_index" on "functions" using gin ("tags");`);
    this.addSql(`create table "executions" (
      "id" varchar(255) not null primary key,
      "function_id" varchar(255) not null
        constraint "executions_function_id_foreign" references "functions" ("id") on delete cascade,
      "account_id" varchar(255) not null
        constraint "executions_account_id_foreign" references "accounts" ("id") on delete cascade,
      "status" varchar(16) not null,
      "params" jsonb not null,
      "error" jsonb null,
      "logs" jsonb not null,
      "trigger" jsonb not null,
      "secrets_read" jsonb not null,
      "started_at" timestamptz not null,
      "completed_at" timestamptz null,
      "duration" int null);`);
    this.addSql(`create table "execution_results" (
      "execution_id" varchar(255) not null primary key
        constraint "execution_results_execution_id_foreign" references "executions" ("id") on delete cascade,
      "ciphertext" bytea not null,
      "wrapped_key" bytea not null,
      "master_key_id" varchar(16) not null);`);
    this.addSql(`create index "execution_results_master_key_id_index" on "execution_results" ("master_key_id");`);
    // Stats, lastInvocation and the history list all read one function's executions by start time.
    this.addSql(
      `create index "executions_function_id_started_at_index" on "executions" ("function_id", "started_at" desc) include ("status", "duration");`,
    );
  }
}
