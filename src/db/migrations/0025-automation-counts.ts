import { Migration } from '@mikro-orm/migrations';

/**
 * Each account's number of automations, kept by PostgreSQL itself on every insert and delete of
 * a row, whatever path makes it (issue 34). An insert past the limit its statement names is
 * refused by the count itself: a create is one statement (insertAutomation), where it counted the
 * account's automations (10,000 index entries a create at 10,000) in a transaction of five round
 * trips behind an advisory lock. The count's row lock, taken by the increment and held to the
 * commit, orders the account's racing creates: each counts the ones committed before it.
 */
export class AutomationCounts extends Migration {
  override up(): void {
    this.addSql(`create table "automation_counts" (
      "account_id" varchar(255) not null primary key
        constraint "automation_counts_account_id_foreign" references "accounts" ("id") on delete cascade,
      "automations" int not null
    );`);
    // The limit is the inserting transaction's to name (set_config, insertAutomation): one that
    // names none (a fixture, an operator's SQL) is counted and not refused. NF409: refused.
    this.addSql(`create function "count_automations"() returns trigger language plpgsql as $$
      declare
        "counted" int;
        "most" int := nullif(current_setting('neoflow.automations_per_account', true), '')::int;
      begin
        if tg_op = 'INSERT' then
          insert into "automation_counts" as "kept" ("account_id", "automations") values (new."account_id", 1)
            on conflict ("account_id") do update set "automations" = "kept"."automations" + 1
            returning "automations" into "counted";
          if "counted" > "most" then
            raise exception 'the account has % automations, the most it may have', "most"
              using errcode = 'NF409';
          end if;
        else
          update "automation_counts" set "automations" = "automations" - 1 where "account_id" = old."account_id";
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "automations_counted" after insert or delete on "automations"
      for each row execute function "count_automations"();`);
    // Counted after the trigger is in place: its lock on the table holds other inserts back until
    // this commits, so none falls between the count and the trigger.
    this.addSql(`insert into "automation_counts" ("account_id", "automations")
      select "account_id", count(*) from "automations" group by "account_id";`);
  }
}
