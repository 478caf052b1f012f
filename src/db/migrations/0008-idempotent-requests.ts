import { Migration } from '@mikro-orm/migrations';

/**
 * What a request sent with an `Idempotency-Key` answered, for 24 hours: the same key and request
 * get that answer again. The answer is sealed with the master key (an invoke's may hold what the
 * code read from a secret); `request_hash` names the request it answered.
 */
export class IdempotentRequests extends Migration {
  override up(): void {
    this.addSql(`create table "idempotent_requests" (
      "account_id" varchar(255) not null
        constraint "idempotent_requests_account_id_foreign" references "accounts" ("id") on delete cascade,
      "key" varchar(255) not null,
      "request_hash" char(64) not null,
      "claimed_at" timestamptz not null,
      "answered" boolean not null default false,
      "ciphertext" bytea null,
      "wrapped_key" bytea null,
      "master_key_id" varchar(255) null,
      primary key ("account_id", "key"));`);
  }
}
