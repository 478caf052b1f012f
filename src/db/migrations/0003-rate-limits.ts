import { Migration } from '@mikro-orm/migrations';

export class RateLimits extends Migration {
  override up(): void {
    // Both override columns are set together, or neither (the key then follows NEOFLOW_RATE_LIMIT).
    this.addSql(`alter table "api_keys"
      add column "rate_requests" int null,
      add column "rate_window_seconds" int null,
      add constraint "api_keys_rate_check" check (
        ("rate_requests" is null) = ("rate_window_seconds" is null)
        and "rate_requests" > 0 and "rate_window_seconds" > 0);`);
    // One token bucket per key, shared by every API process; `allowed` is the last request's verdict.
    this.addSql(`create table "rate_limit_buckets" (
      "key_id" varchar(255) not null primary key
        constraint "rate_limit_buckets_key_id_foreign" references "api_keys" ("id") on delete cascade,
      "tokens" double precision not null,
      "refilled_at" timestamptz not null,
      "allowed" boolean not null);`);
  }
}
