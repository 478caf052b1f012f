import { Migration } from '@mikro-orm/migrations';

/**
 * Functions that fetch (issue 30): the hosts a function may reach, none for the functions that
 * exist; and each execution's requests (method, host, status, bytes, duration), none for the past.
 */
export class FunctionFetch extends Migration {
  override up(): void {
    this.addSql(`alter table "functions" add column "allowed_hosts" text[] not null default '{}';`);
    this.addSql(`alter table "executions" add column "http_requests" jsonb not null default '[]';`);
  }
}
