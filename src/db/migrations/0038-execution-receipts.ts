import { Migration } from '@mikro-orm/migrations';

/**
 * Execution receipts (issue 51): the signed preimage of an ended execution (src/receipts/), written
 * in the statement that stores the execution's end, so an execution has one receipt or none. The
 * preimage is kept as signed; `host_calls` lists the chain reads and fetches its hostCallsHash
 * covers, which the execution's row does not keep; `evidence`, a confidential VM's report when the
 * key was bound to one. Executions that ended before receipts have no row.
 */
export class ExecutionReceipts extends Migration {
  override up(): void {
    this.addSql(`create table "execution_receipts" (
      "execution_id" varchar(255) not null primary key
        constraint "execution_receipts_execution_id_foreign" references "executions" ("id") on delete cascade,
      "key_id" varchar(16) not null,
      "preimage" bytea not null,
      "signature" bytea not null,
      "host_calls" jsonb not null,
      "evidence" bytea null);`);
  }
}
