import type { EntityManager } from '@mikro-orm/postgresql';
import { keyId } from '../crypto/key-id.ts';
import { rewrap, type MasterKeys } from '../crypto/envelope.ts';
import { countLeft, nextBatch, sealedTables, storeRewrapped, type SealedTable } from './sealed-tables.sql.ts';

const batchSize = 200;

interface Rotation {
  /** Data keys re-wrapped under the current master key. */
  rewrapped: number;
  /** Values still under another key once done, counted afresh: 0 when the old keys can go. */
  left: number;
}

/** Passes over the tables before giving up on values that keep appearing under an old key. */
const passes = 3;

/**
 * Re-wraps every data key not yet under the current master key (secret values, account signers,
 * automations' credentials, execution results, functions' stored values and kept idempotent answers) while the service keeps running (readers accept
 * the previous keys meanwhile). Each table is read once in the order of its primary key, a batch
 * per transaction, each batch going on from where the last ended: the work grows with the rows,
 * never with their square. Values are never decrypted, nor even read: only data keys pass through
 * memory. Then every table is counted again; values sealed under an old key meanwhile (a process
 * still configured with it) get another pass, and what is left is reported.
 */
export async function rotateMasterKey(em: EntityManager, masters: MasterKeys): Promise<Rotation> {
  let rewrapped = 0;
  for (let pass = 0; pass < passes; pass += 1) {
    for (const table of sealedTables) rewrapped += await rotateTable(em, table, masters);
    const left = await countLeft(em, keyId(masters.current));
    if (left === 0 || pass === passes - 1) return { rewrapped, left };
  }
  return { rewrapped, left: await countLeft(em, keyId(masters.current)) };
}

async function rotateTable(em: EntityManager, sealedTable: SealedTable, masters: MasterKeys) {
  const current = keyId(masters.current);
  let after: unknown[] | undefined;
  let rewrapped = 0;
  for (;;) {
    const rows = await nextBatch(em, sealedTable, current, after, batchSize);
    if (rows.length === 0) return rewrapped;
    rewrapped += await em.fork().transactional(async (tx) => {
      let updated = 0;
      for (const row of rows) {
        const masterKeyId = row.master_key_id as string;
        const sealed = rewrap(
          { ciphertext: new Uint8Array(), wrappedKey: row.wrapped_key as Buffer, masterKeyId },
          masters,
        );
        updated += await storeRewrapped(tx, sealedTable, row, sealed, masterKeyId);
      }
      return updated;
    });
    after = sealedTable.key.map((column) => rows.at(-1)![column]);
    if (rows.length < batchSize) return rewrapped;
  }
}
