import { Migration } from '@mikro-orm/migrations';

/**
 * A change counter of the automations the block follower watches (issue 34): the follower keeps
 * them in memory and reads them again only when the counter moved, one row read a block instead of
 * every watcher's. Bumped by PostgreSQL itself, whatever path inserts, changes or deletes a row
 * that is or was a blockchain or transaction trigger. The trigger is deferred to the commit so that
 * the counter's row lock is held only while committing (concurrent creates queue on it that
 * briefly), and being transactional, a follower that sees the counter moved sees the change too.
 */
export class WatcherChanges extends Migration {
  override up(): void {
    this.addSql(`create table "watcher_changes" ("id" int primary key check ("id" = 1), "version" bigint not null);`);
    this.addSql(`insert into "watcher_changes" ("id", "version") values (1, 0);`);
    this.addSql(`create function "bump_watcher_changes"() returns trigger language plpgsql as $$
      begin
        update "watcher_changes" set "version" = "version" + 1 where "id" = 1;
        return null;
      end $$;`);
    const watcher = (row: string) => `${row}."trigger_type" in ('blockchain', 'transaction')`;
    this.addSql(`create constraint trigger "automations_watcher_inserted" after insert on "automations"
      deferrable initially deferred for each row when (${watcher('new')})
      execute function "bump_watcher_changes"();`);
    this.addSql(`create constraint trigger "automations_watcher_deleted" after delete on "automations"
      deferrable initially deferred for each row when (${watcher('old')})
      execute function "bump_watcher_changes"();`);
    // Only what the follower reads of a row: a run's bookkeeping on it (followed_until…) moves nothing.
    this.addSql(`create constraint trigger "automations_watcher_changed" after update on "automations"
      deferrable initially deferred for each row
      when ((${watcher('old')} or ${watcher('new')}) and (
        old."status" is distinct from new."status" or old."trigger_type" is distinct from new."trigger_type"
        or old."trigger" is distinct from new."trigger" or old."watch_from_block" is distinct from new."watch_from_block"
        or old."account_id" is distinct from new."account_id"))
      execute function "bump_watcher_changes"();`);
  }
}
