import { Migration } from '@mikro-orm/migrations';

/**
 * Every authenticated request writes its key's bucket: unlogged, that write commits without a
 * WAL flush. A database crash empties the table, which only refills every bucket (a burst
 * forgiven once); a bucket is a counter, not a record.
 */
export class UnloggedRateLimits extends Migration {
  override up(): void {
    this.addSql(`alter table "rate_limit_buckets" set unlogged;`);
  }
}
