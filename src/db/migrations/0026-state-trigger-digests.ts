import { Migration } from '@mikro-orm/migrations';

/**
 * A state trigger's mark names what it was decided for by a digest (issue 44): PostgreSQL's md5 of
 * the trigger's jsonb text and the block it was armed at, read once when the trigger changes,
 * instead of the whole trigger written as JSON text twice a block. Each mark still current (its
 * key, read as jsonb, is the trigger and block it names) is given the digest, so that no trigger
 * starts afresh, and fires again, because the service was upgraded.
 */
export class StateTriggerDigests extends Migration {
  override up(): void {
    this.addSql(`update "state_trigger_marks" m
      set "condition_key" = md5(a."trigger"::text) || ':' || coalesce(a."watch_from_block"::text, '')
      from "automations" a
      where a."id" = m."automation_id" and m."condition_key" like '[%'
        and m."condition_key"::jsonb = jsonb_build_array(a."trigger", a."watch_from_block");`);
  }
}
