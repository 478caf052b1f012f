import { Migration } from '@mikro-orm/migrations';
import type { Trigger } from '../../automations/model/trigger.schemas.ts';
import type { Action } from '../../automations/model/action.schemas.ts';
import { credentialsOf, mapChannel, masked, maskOf } from '../../automations/credentials/credentials.ts';
import type { Channel, NotifyRule } from '../../automations/model/notify.schemas.ts';
import { seal } from '../../crypto/envelope.ts';
import { sealContexts } from '../../crypto/seal-contexts.ts';
import { lentMasterKeys } from '../migration-keys.ts';

const batch = 200;

/**
 * Automations' credentials (channel and webhook URLs, webhook header values, price-source URLs)
 * move out of the clear JSON columns into sealed rows, one per credential, and the columns keep
 * their masks (src/automations/credentials/credentials.ts); so do the channels notifications copied.
 */
export class SealedCredentials extends Migration {
  override async up(): Promise<void> {
    await this.execute(`create table "automation_credentials" (
      "id" bigserial primary key,
      "automation_id" varchar(255) not null
        constraint "automation_credentials_automation_id_foreign" references "automations" ("id") on delete cascade,
      "path" text not null,
      "ciphertext" bytea not null,
      "wrapped_key" bytea not null,
      "master_key_id" varchar(16) not null,
      constraint "automation_credentials_automation_id_path_unique" unique ("automation_id", "path"));`);
    await this.sealAutomations();
    await this.maskNotifications();
  }

  private async sealAutomations() {
    for (let after = ''; ;) {
      const rows = (await this.execute(
        `select "id", "trigger", "action", "notify" from "automations" where "id" > ? order by "id" limit ${batch}`,
        [after],
      )) as { id: string; trigger: Trigger; action: Action; notify: NotifyRule[] }[];
      for (const { id, ...parts } of rows) {
        // Nothing was masked before: every value found is in clear.
        const clear = credentialsOf(parts);
        if (clear.length === 0) continue;
        const masterKeys = lentMasterKeys(this.config, 'Sealing the credentials automations hold');
        for (const { path, value } of clear) {
          const sealed = seal(value, sealContexts.credential(id, path), masterKeys);
          await this.execute(
            `insert into "automation_credentials" ("automation_id", "path", "ciphertext", "wrapped_key", "master_key_id")
              values (?, ?, ?, ?, ?)`,
            [id, path, Buffer.from(sealed.ciphertext), Buffer.from(sealed.wrappedKey), sealed.masterKeyId],
          );
        }
        const shown = masked(parts);
        await this.execute(`update "automations" set "trigger" = ?, "action" = ?, "notify" = ? where "id" = ?`, [
          JSON.stringify(shown.trigger),
          JSON.stringify(shown.action),
          JSON.stringify(shown.notify),
          id,
        ]);
      }
      if (rows.length < batch) return;
      after = rows.at(-1)!.id;
    }
  }

  private async maskNotifications() {
    for (let after = ''; ;) {
      const rows = (await this.execute(
        `select "id", "rule", "channel" from "notifications" where "id" > ? order by "id" limit ${batch}`,
        [after],
      )) as { id: string; rule: number; channel: Channel }[];
      for (const { id, rule, channel } of rows) {
        const shown = mapChannel(channel, `notify.${rule}.channel`, ({ kind, value }) => maskOf(kind, value));
        await this.execute(`update "notifications" set "channel" = ? where "id" = ?`, [JSON.stringify(shown), id]);
      }
      if (rows.length < batch) return;
      after = rows.at(-1)!.id;
    }
  }
}
