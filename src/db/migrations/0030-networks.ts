import { Migration } from '@mikro-orm/migrations';

/**
 * Automations, runs and account spending per Neo network (issue 45): each automation follows one
 * network by name, each run records the network it ran on, and an account's spend is counted per
 * network (GAS of one network is not GAS of another). Rows from before are given `default`, the
 * name `NEO_RPC_URL` gives the one network every deployment followed until then. The columns keep
 * no default: a writer that forgets the network fails instead of guessing one.
 */
export class Networks extends Migration {
  override up(): void {
    for (const table of ['automations', 'automation_runs']) {
      this.addSql(`alter table "${table}" add column "network" varchar(32) not null default 'default';`);
      this.addSql(`alter table "${table}" alter column "network" drop default;`);
    }
    this.addSql(`create index "automations_network_status_index" on "automations" ("network", "status");`);
    this.addSql(`alter table "account_gas_spend" add column "network" varchar(32) not null default 'default';`);
    this.addSql(`alter table "account_gas_spend" alter column "network" drop default;`);
    this.addSql(`alter table "account_gas_spend" drop constraint "account_gas_spend_pkey";`);
    this.addSql(`alter table "account_gas_spend" add primary key ("account_id", "network");`);
  }
}
