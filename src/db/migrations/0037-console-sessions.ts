import { Migration } from '@mikro-orm/migrations';

/**
 * Console sessions (issue 48): a key exchanged for a short-lived token that the browser holds in an
 * HttpOnly cookie, so the key itself never stays in the browser. Only the token's SHA-256 is
 * stored. A session is its key: deleting or revoking the key ends it (the admission joins the key
 * and refuses a revoked or expired one; the foreign key deletes the rows of a deleted key).
 * `last_seen_at` moves with use and ends an idle session; `expires_at` ends any session.
 */
export class ConsoleSessions extends Migration {
  override up(): void {
    this.addSql(`create table "console_sessions" (
      "id" varchar(255) not null primary key,
      "key_id" varchar(255) not null references "api_keys" ("id") on delete cascade,
      "token_hash" char(64) not null unique,
      "created_at" timestamptz not null default clock_timestamp(),
      "last_seen_at" timestamptz not null default clock_timestamp(),
      "expires_at" timestamptz not null
    );`);
    this.addSql(`create index "console_sessions_key_id_index" on "console_sessions" ("key_id");`);
  }
}
