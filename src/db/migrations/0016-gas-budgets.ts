import { Migration } from '@mikro-orm/migrations';

/**
 * GAS budgets (issue 29): the limits an automation sets, and the default its account sets for
 * automations without their own; what each automation and each account spent, today (a UTC day)
 * and in all, as counters a reservation changes in one locked row; and one reservation per
 * transaction a run's prepare priced, until the chain's answer settles or releases it.
 */
export class GasBudgets extends Migration {
  override up(): void {
    this.addSql(`alter table "automations" add column "budget" jsonb null;`);
    this.addSql(`alter table "accounts" add column "budget" jsonb null;`);
    for (const [table, owner, references] of [
      ['automation_gas_spend', 'automation_id', 'automations'],
      ['account_gas_spend', 'account_id', 'accounts'],
    ] as const) {
      this.addSql(`create table "${table}" (
        "${owner}" varchar(255) not null primary key
          constraint "${table}_${owner}_foreign" references "${references}" ("id") on delete cascade,
        "day" date not null,
        "today" bigint not null default 0,
        "total" bigint not null default 0);`);
    }
    this.addSql(`create table "gas_reservations" (
      "run_id" varchar(255) not null
        constraint "gas_reservations_run_id_foreign" references "automation_runs" ("id") on delete cascade,
      "tx_hash" varchar(66) not null,
      "automation_id" varchar(255) not null,
      "account_id" varchar(255) not null,
      "amount" bigint not null,
      "day" date not null,
      "state" varchar(16) not null default 'reserved',
      "created_at" timestamptz not null default now(),
      "settled_at" timestamptz null,
      constraint "gas_reservations_pkey" primary key ("run_id", "tx_hash"),
      constraint "gas_reservations_state_check" check ("state" in ('reserved', 'settled', 'released')));`);
    this.addSql(`create index "gas_reservations_automation_id_reserved_index"
      on "gas_reservations" ("automation_id") where "state" = 'reserved';`);
    this.addSql(`create index "gas_reservations_account_id_reserved_index"
      on "gas_reservations" ("account_id") where "state" = 'reserved';`);
  }
}
