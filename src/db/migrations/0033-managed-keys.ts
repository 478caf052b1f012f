import { Migration } from '@mikro-orm/migrations';

/**
 * Keys managed over the API (issue 47): a key has a name, the role it was made with (its scopes
 * stay the stored truth), the key that created it (null for the CLI's), when it was last used and
 * when it expires. An expired key is refused as an unknown one; `last_used_at` is written by the
 * admission at most once a minute a key, so a busy key costs no extra write per request.
 */
export class ManagedKeys extends Migration {
  override up(): void {
    this.addSql(`alter table "api_keys"
      add column "name" varchar(64) null,
      add column "role" varchar(16) null,
      add column "created_by_key_id" varchar(255) null references "api_keys" ("id") on delete set null,
      add column "last_used_at" timestamptz null,
      add column "expires_at" timestamptz null;`);
    this.addSql(
      `create index "api_keys_account_id_created_at_index" on "api_keys" ("account_id", "created_at" desc, "id" desc);`,
    );
  }
}
