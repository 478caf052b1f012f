import { Migration } from '@mikro-orm/migrations';

export class Secrets extends Migration {
  override up(): void {
    this.addSql(`create table "secrets" (
      "id" varchar(255) not null primary key,
      "account_id" varchar(255) not null
        constraint "secrets_account_id_foreign" references "accounts" ("id") on delete cascade,
      "name" varchar(128) not null,
      "description" text null,
      "version" int not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "secrets_account_id_name_unique" unique ("account_id", "name"));`);
    this.addSql(`create index "secrets_account_id_created_at_index" on "secrets" ("account_id", "created_at" desc);`);
    this.addSql(`create table "secret_versions" (
      "id" bigserial primary key,
      "secret_id" varchar(255) not null
        constraint "secret_versions_secret_id_foreign" references "secrets" ("id") on delete cascade,
      "version" int not null,
      "ciphertext" bytea not null,
      "wrapped_key" bytea not null,
      "master_key_id" varchar(16) not null,
      "created_at" timestamptz not null,
      constraint "secret_versions_secret_id_version_unique" unique ("secret_id", "version"));`);
    this.addSql(`create index "secret_versions_master_key_id_index" on "secret_versions" ("master_key_id");`);
  }
}
