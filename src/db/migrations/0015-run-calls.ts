import { Migration } from '@mikro-orm/migrations';

/**
 * What a run sends and why it sent nothing: the calls its transaction makes, stored as sent (a
 * contract action's arguments with their templates resolved against the trigger, or the calls a
 * function decided) before anything is signed, so that a retried step signs the same calls; and a
 * deciding function's reason to skip.
 */
export class RunCalls extends Migration {
  override up(): void {
    this.addSql(`alter table "automation_runs"
      add column "calls" jsonb null,
      add column "skipped" varchar(512) null;`);
  }
}
