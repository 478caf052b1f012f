import { Migration } from '@mikro-orm/migrations';

export class AccountSigners extends Migration {
  override up(): void {
    // One key pair per account; its WIF sealed as secret_versions seal values.
    this.addSql(`create table "account_signers" (
      "account_id" varchar(255) not null primary key
        constraint "account_signers_account_id_foreign" references "accounts" ("id") on delete cascade,
      "address" varchar(34) not null constraint "account_signers_address_unique" unique,
      "script_hash" varchar(42) not null,
      "ciphertext" bytea not null,
      "wrapped_key" bytea not null,
      "master_key_id" varchar(16) not null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "account_signers_master_key_id_index" on "account_signers" ("master_key_id");`);
  }
}
