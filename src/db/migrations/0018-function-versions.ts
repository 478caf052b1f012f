import { Migration } from '@mikro-orm/migrations';

/**
 * Immutable versions of functions (issue 30): every change of what a function runs (its code and
 * the settings listed in src/functions/versioned-fields.ts) is kept as a numbered version; the
 * function's row holds the current one and its number, each execution the number it ran. Every
 * existing function's current state becomes its version 1, made by no key (it predates them);
 * executions recorded before keep no number, as which code they ran is not known.
 */
export class FunctionVersions extends Migration {
  override up(): void {
    this.addSql(`create table "function_versions" (
      "function_id" varchar(255) not null
        constraint "function_versions_function_id_foreign" references "functions" ("id") on delete cascade,
      "version" int not null,
      "code" text not null,
      "code_sha256" varchar(64) not null,
      "settings" jsonb not null,
      "key_id" varchar(255) null,
      "created_at" timestamptz not null,
      constraint "function_versions_pkey" primary key ("function_id", "version"));`);
    this.addSql(`alter table "functions" add column "version" int not null default 1;`);
    this.addSql(`alter table "executions" add column "function_version" int null;`);
    this
      .addSql(`insert into "function_versions" ("function_id", "version", "code", "code_sha256", "settings", "key_id", "created_at")
      select "id", 1, "code", encode(sha256(convert_to("code", 'UTF8')), 'hex'),
        jsonb_build_object('runtime', "runtime", 'timeout', "timeout", 'environment', "environment", 'secrets', to_jsonb("secrets")),
        null, "updated_at"
      from "functions";`);
  }
}
