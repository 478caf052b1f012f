import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sealed } from '../../crypto/envelope.ts';
import { executeBound } from '../../db/bound-statement.ts';

/** The hand-written statements of the `automation_credentials` table (its writes go through the ORM). */

/** The automation's sealed credentials, by the path of each in its trigger or action. */
export async function sealedCredentials(em: EntityManager, automationId: string): Promise<Map<string, Sealed>> {
  const rows = await em
    .getConnection()
    .execute<{ path: string; ciphertext: Buffer; wrapped_key: Buffer; master_key_id: string }[]>(
      `select "path", "ciphertext", "wrapped_key", "master_key_id" from "automation_credentials" where "automation_id" = ?`,
      [automationId],
    );
  return new Map<string, Sealed>(
    rows.map((row) => [
      row.path,
      { ciphertext: row.ciphertext, wrappedKey: row.wrapped_key, masterKeyId: row.master_key_id },
    ]),
  );
}

/**
 * Reads the trigger credentials of the automations listed, each by the (automation, path) index.
 * `offset 0` keeps the lookup per automation: flattened, or as `= any(…)`, it was planned as a scan
 * of every automation's credentials (3,000 rows a poll at bench:scale's 10k, for 300 wanted).
 */
export const sealedTriggerCredentialsSql = `select c."automation_id", c."path", c."ciphertext", c."wrapped_key", c."master_key_id"
      from unnest(?::text[]) as wanted("id")
      cross join lateral (
        select * from "automation_credentials"
        where "automation_id" = wanted."id" and "path" like 'trigger.%' offset 0
      ) c`;

/**
 * The sealed credentials of the triggers of `automationIds`, by automation, then by path: a price
 * source's poll reads those of every automation it evaluates in one statement.
 */
export async function sealedTriggerCredentials(
  em: EntityManager,
  automationIds: string[],
): Promise<Map<string, Map<string, Sealed>>> {
  const { rows } = await executeBound<{
    automation_id: string;
    path: string;
    ciphertext: Buffer;
    wrapped_key: Buffer;
    master_key_id: string;
  }>(em, sealedTriggerCredentialsSql, [automationIds]);
  const byAutomation = new Map<string, Map<string, Sealed>>();
  for (const row of rows) {
    const byPath = byAutomation.get(row.automation_id) ?? new Map<string, Sealed>();
    byPath.set(row.path, { ciphertext: row.ciphertext, wrappedKey: row.wrapped_key, masterKeyId: row.master_key_id });
    byAutomation.set(row.automation_id, byPath);
  }
  return byAutomation;
}
