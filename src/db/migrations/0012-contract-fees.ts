import { Migration } from '@mikro-orm/migrations';

/**
 * What a contract run's transaction burned (its system and network fees, read from the chain once
 * it is in a block), and what keeps a run with a transaction in flight from settling: the last
 * error in reaching the chain, while the run waits for it.
 */
export class ContractFees extends Migration {
  override up(): void {
    this.addSql(`alter table "automation_runs"
      add column "system_fee" varchar(32) null,
      add column "network_fee" varchar(32) null,
      add column "relay_error" varchar(512) null;`);
  }
}
