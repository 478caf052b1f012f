import { Migration } from '@mikro-orm/migrations';

/** A new resource id `sgn_…` made in SQL: 18 random bytes as 24 url-safe characters, as src/ids.ts makes them. */
const newSignerId = `'sgn_' || translate(encode(substring(
  decode(replace(gen_random_uuid()::text, '-', ''), 'hex') || decode(replace(gen_random_uuid()::text, '-', ''), 'hex')
  from 1 for 18), 'base64'), '+/', '-_')`;

/** Which automations sign: contract actions, and function actions that may decide calls (`execute`). */
const sendingAction = `("action"->>'type' = 'contract' or ("action"->>'type' = 'function' and "action" ? 'execute'))`;

/**
 * Several signers per account (issue 46): an account's keys become a resource of their own, each
 * a key Neoflow generated, a key the tenant imported (both sealed as account_signers sealed them,
 * under the same context `signer:<account id>`, so a migrated seal opens unchanged), or a key in
 * an AWS KMS or a PKCS#11 token (`backend` says which; nothing secret is stored for them).
 *
 * Every account_signers row becomes the account's `default` signer of type generated with the
 * same address and seal. Its public key is not stored in account_signers and is learnt by
 * opening the seal (the API backfills it), so it may stay null for migrated rows only.
 *
 * Automations that sign name their signer (`signer_id`, their account's default for those made
 * before), a run records the signer it prepared its transaction with, and an account's spend is
 * counted per signer on each network, each reservation keeping whose counter it moved: what was
 * counted and reserved until now was the default signer's.
 */
export class Signers extends Migration {
  override up(): void {
    this.addSql(`create table "signers" (
      "id" varchar(255) not null primary key,
      "account_id" varchar(255) not null
        constraint "signers_account_id_foreign" references "accounts" ("id") on delete cascade,
      "name" varchar(64) not null,
      "type" varchar(16) not null,
      "address" varchar(34) not null,
      "script_hash" varchar(42) not null,
      "public_key" varchar(66) null,
      "ciphertext" bytea null,
      "wrapped_key" bytea null,
      "master_key_id" varchar(16) null,
      "backend" jsonb null,
      "budget" jsonb null,
      "created_at" timestamptz not null,
      constraint "signers_account_id_name_unique" unique ("account_id", "name"),
      constraint "signers_type_check" check ("type" in ('generated', 'import', 'aws-kms', 'pkcs11')),
      constraint "signers_sealed_check" check (("type" in ('generated', 'import')) =
        ("ciphertext" is not null and "wrapped_key" is not null and "master_key_id" is not null)),
      constraint "signers_backend_check" check (("type" in ('aws-kms', 'pkcs11')) = ("backend" is not null)),
      constraint "signers_public_key_check" check ("public_key" is not null or "type" = 'generated'));`);
    this.addSql(`create index "signers_master_key_id_index" on "signers" ("master_key_id");`);
    this.addSql(`insert into "signers" ("id", "account_id", "name", "type", "address", "script_hash",
        "ciphertext", "wrapped_key", "master_key_id", "created_at")
      select ${newSignerId}, "account_id", 'default', 'generated', "address", "script_hash",
        "ciphertext", "wrapped_key", "master_key_id", "created_at"
      from "account_signers";`);
    this.addSql(`drop table "account_signers";`);

    this.addSql(`alter table "automations" add column "signer_id" varchar(255) null
      constraint "automations_signer_id_foreign" references "signers" ("id");`);
    this.addSql(`create index "automations_signer_id_index" on "automations" ("signer_id");`);
    this.addSql(`update "automations" a set "signer_id" = s."id" from "signers" s
      where s."account_id" = a."account_id" and s."name" = 'default' and ${sendingAction};`);
    this.addSql(`alter table "automation_runs" add column "signer_id" varchar(255) null
      constraint "automation_runs_signer_id_foreign" references "signers" ("id") on delete set null;`);

    this.addSql(`alter table "account_gas_spend" add column "signer_id" varchar(255) null
      constraint "account_gas_spend_signer_id_foreign" references "signers" ("id") on delete cascade;`);
    this.addSql(`update "account_gas_spend" g set "signer_id" = s."id" from "signers" s
      where s."account_id" = g."account_id" and s."name" = 'default';`);
    // Spent without a signer cannot be: an account without one sent nothing.
    this.addSql(`delete from "account_gas_spend" where "signer_id" is null;`);
    this.addSql(`alter table "account_gas_spend" alter column "signer_id" set not null;`);
    this.addSql(`alter table "account_gas_spend" drop constraint "account_gas_spend_pkey";`);
    this.addSql(`alter table "account_gas_spend" add primary key ("account_id", "network", "signer_id");`);
    // A reservation moves its signer's counter when it settles: the one it was reserved against.
    this.addSql(`alter table "gas_reservations" add column "signer_id" varchar(255) null
      constraint "gas_reservations_signer_id_foreign" references "signers" ("id") on delete set null;`);
    this.addSql(`update "gas_reservations" g set "signer_id" = s."id" from "signers" s
      where s."account_id" = g."account_id" and s."name" = 'default';`);
  }
}
