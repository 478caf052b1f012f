import { Migration } from '@mikro-orm/migrations';

/**
 * Approvals before signing (issue 47): an automation records the keys that created it and last
 * changed it (neither may approve its runs; null for those made before); a run waiting for
 * approvals holds its request (`approval`: status, required, fees, deadline) beside its calls; each
 * key's approval or rejection of a run is a row, one per key and run, which the API writes in one
 * transaction with the request's status and the workflow reads when it wakes. Its channels are
 * told `approval_requested`.
 */
export class RunApprovals extends Migration {
  override up(): void {
    this.addSql(`alter table "automations"
      add column "created_by_key_id" varchar(255) null references "api_keys" ("id") on delete set null,
      add column "changed_by_key_id" varchar(255) null references "api_keys" ("id") on delete set null;`);
    this.addSql(`alter table "automation_runs" add column "approval" jsonb null;`);
    // `approval_requested` is longer than the events before it.
    this.addSql(`alter table "notifications" alter column "event" type varchar(32);`);
    this.addSql(`create table "run_approvals" (
      "run_id" varchar(255) not null references "automation_runs" ("id") on delete cascade,
      "key_id" varchar(255) not null,
      "decision" varchar(8) not null check ("decision" in ('approve', 'reject')),
      "decided_at" timestamptz not null default now(),
      primary key ("run_id", "key_id")
    );`);
  }
}
