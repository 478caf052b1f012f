import { Migration } from '@mikro-orm/migrations';

/**
 * A block cursor names the configured network it follows (issue 45), beside the magic it is keyed
 * by: an automation names its network, not a magic, and `followed_until` (migration 0020), set as
 * a blockchain automation stops being active, must be where its own network's follower stood, not
 * the furthest of every network's. The follower writes the name with each block it moves past;
 * the cursor of the one network followed until now is named `default` (NEO_RPC_URL's), as its
 * automations are (migration 0030). A name no cursor has yet leaves `watch_from_block`.
 *
 * Each follower reads its own network's active watchers and state triggers, and the reconciler
 * asks which networks have any: the active automations' index by trigger type holds the network
 * too, so that none of these reads passes over another network's automations.
 */
export class CursorNetworkNames extends Migration {
  override up(): void {
    this.addSql(`alter table "block_cursors" add column "name" varchar(32) null;`);
    this.addSql(`update "block_cursors" set "name" = 'default' where "network" =
      (select "network" from "block_cursors" order by "updated_at" desc limit 1);`);
    this.addSql(`create or replace function "automations_followed_until"() returns trigger language plpgsql as $$
      begin
        new."followed_until" := greatest(
          (select "next_index" from "block_cursors" where "name" = new."network" order by "updated_at" desc limit 1),
          new."watch_from_block");
        return new;
      end $$;`);
    this.addSql(`create index "automations_active_trigger_type_network_index"
      on "automations" ("trigger_type", "network") where "status" = 'active';`);
    this.addSql(`drop index "automations_active_trigger_type_index";`);
  }
}
