import { Migration } from '@mikro-orm/migrations';

/**
 * Each account's number of automations, kept by PostgreSQL itself on every insert and delete of
 * a row, whatever path makes it (issue 34): a create's quota check reads one row instead of
 * counting the account's automations (10,000 index entries a create at 10,000), and the row's
 * lock, taken by the insert's increment and held to the commit, orders the account's racing
 * creates as the advisory lock did, so that a count read after the insert is exact.
 */
export class AutomationCounts extends Migration {
  override up(): void {
    this.addSql(`create table "automation_counts" (
      "account_id" varchar(255) not null primary key
        constraint "automation_counts_account_id_foreign" references "accounts" ("id") on delete cascade,
      "automations" int not null
    );`);
    this.addSql(`create function "count_automations"() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into "automation_counts" as "counted" ("account_id", "automations") values (new."account_id", 1)
            on conflict ("account_id") do update set "automations" = "counted"."automations" + 1;
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
