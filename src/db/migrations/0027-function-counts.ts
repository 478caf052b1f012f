import { Migration } from '@mikro-orm/migrations';

/**
 * Each account's number of functions, kept by PostgreSQL on every insert and delete of a row, as
 * 0025 keeps its automations (issue 44): an insert past the limit its transaction names
 * (`neoflow.functions_per_account`, createFunction) is refused with NF409, racing creates taking
 * turns at the count's row. And what the version cap never prunes (function-version.sql.ts): the
 * version last promoted, and the versions running executions run, found by an index of their own.
 */
export class FunctionCounts extends Migration {
  override up(): void {
    this.addSql(`create table "function_counts" (
      "account_id" varchar(255) not null primary key
        constraint "function_counts_account_id_foreign" references "accounts" ("id") on delete cascade,
      "functions" int not null
    );`);
    this.addSql(`create function "count_functions"() returns trigger language plpgsql as $$
      declare
        "counted" int;
        "most" int := nullif(current_setting('neoflow.functions_per_account', true), '')::int;
      begin
        if tg_op = 'INSERT' then
          insert into "function_counts" as "kept" ("account_id", "functions") values (new."account_id", 1)
            on conflict ("account_id") do update set "functions" = "kept"."functions" + 1
            returning "functions" into "counted";
          if "counted" > "most" then
            raise exception 'the account has % functions, the most it may have', "most"
              using errcode = 'NF409';
          end if;
        else
          update "function_counts" set "functions" = "functions" - 1 where "account_id" = old."account_id";
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "functions_counted" after insert or delete on "functions"
      for each row execute function "count_functions"();`);
    // Counted after the trigger is in place: its lock on the table holds other inserts back until
    // this commits, so none falls between the count and the trigger.
    this.addSql(`insert into "function_counts" ("account_id", "functions")
      select "account_id", count(*) from "functions" group by "account_id";`);
    this.addSql(`alter table "functions" add column "promoted_version" int null;`);
    this.addSql(`create index "executions_function_id_running_index" on "executions" ("function_id", "function_version")
      where "status" = 'running';`);
  }
}
