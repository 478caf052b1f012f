import { Migration } from '@mikro-orm/migrations';

/**
 * Whether a node ever accepted a run's transaction (issue 44): from then on the network may hold
 * it, and a node's refusal of a re-send no longer proves it never lands. Kept on the run, so a
 * relay resumed by another worker knows it too.
 */
export class RelayedTransactions extends Migration {
  override up(): void {
    this.addSql(`alter table "automation_runs" add column "tx_relayed" boolean not null default false;`);
  }
}
