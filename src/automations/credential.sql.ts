import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sealed } from '../crypto/envelope.ts';

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
