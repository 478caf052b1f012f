import { Migration } from '@mikro-orm/migrations';

/**
 * Inbound webhooks (issue 49): a `webhook` automation's hook, found by its unguessable path, with
 * the SHA-256 of its token (the token itself is answered once and never stored). Hooks are limited
 * per automation and per account by token buckets of their own (`hook_rate_buckets`, keyed
 * `automation:<id>` and `account:<id>`), unlogged like the API keys' own: a crash refills them.
 */
export class AutomationHooks extends Migration {
  override up(): void {
    this.addSql(`create table "automation_hooks" (
      "automation_id" varchar(255) not null primary key
        constraint "automation_hooks_automation_id_foreign" references "automations" ("id") on delete cascade,
      "account_id" varchar(255) not null,
      "path" varchar(64) not null constraint "automation_hooks_path_unique" unique,
      "token_hash" bytea null,
      "created_at" timestamptz not null default now());`);
    this.addSql(`create unlogged table "hook_rate_buckets" (
      "key_id" varchar(255) not null primary key,
      "tokens" double precision not null,
      "refilled_at" timestamptz not null,
      "allowed" boolean not null);`);
  }
}
