import { Migration } from '@mikro-orm/migrations';

export class AccountsAndKeys extends Migration {
  override up(): void {
    this.addSql(`create table "accounts" (
      "id" varchar(255) not null primary key,
      "name" varchar(255) not null constraint "accounts_name_unique" unique,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(`create table "api_keys" (
      "id" varchar(255) not null primary key,
      "account_id" varchar(255) not null
        constraint "api_keys_account_id_foreign" references "accounts" ("id") on delete cascade,
      "hash" varchar(64) not null constraint "api_keys_hash_unique" unique,
      "hint" varchar(255) not null,
      "scopes" text[] not null,
      "created_at" timestamptz not null,
      "revoked_at" timestamptz null);`);
    this.addSql(`create index "api_keys_account_id_index" on "api_keys" ("account_id");`);
  }
}
