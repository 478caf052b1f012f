import type { EntityManager } from '@mikro-orm/postgresql';
import { keyId } from '../crypto/key-id.ts';
import { rewrap, type MasterKeys } from '../crypto/envelope.ts';

const batchSize = 200;

/** A table holding values sealed by envelope.ts: its key columns, in their index's order. */
interface SealedTable {
  table: string;
  key: string[];
}

/** Every table holding a value sealed by envelope.ts belongs here. */
const sealedTables: SealedTable[] = [
  { table: 'secret_versions', key: ['id'] },
  { table: 'account_signers', key: ['account_id'] },
  { table: 'automation_credentials', key: ['id'] },
  { table: 'execution_results', key: ['execution_id'] },
  // Functions' stored values (src/functions/storage/).
  { table: 'function_storage', key: ['function_id', 'key'] },
  // Answers kept for idempotent requests (src/api/idempotency.ts); a claim not answered holds none.
  { table: 'idempotent_requests', key: ['account_id', 'key'] },
];

export interface Rotation {
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
    const left = await countLeft(em, masters);
    if (left === 0 || pass === passes - 1) return { rewrapped, left };
  }
  return { rewrapped, left: await countLeft(em, masters) };
}

const quoted = (columns: string[]) => columns.map((column) => `"${column}"`).join(', ');

/**
 * The next batch of `table`'s values under another key than `current`, after the key `after` (the
 * last of the batch before; none for the first): a range of the primary key's index, so each
 * batch reads on from where the last ended.
 */
function nextBatchSql({ table, key }: SealedTable, first: boolean) {
  const keyColumns = quoted(key);
  const from = first ? '' : `and (${keyColumns}) > (${key.map(() => '?').join(', ')})`;
  return `select ${keyColumns}, "wrapped_key", "master_key_id" from "${table}"
    where "master_key_id" is not null and "master_key_id" <> ? ${from}
    order by ${keyColumns} limit ${batchSize}`;
}

async function rotateTable(em: EntityManager, sealedTable: SealedTable, masters: MasterKeys) {
  const { table, key } = sealedTable;
  const current = keyId(masters.current);
  const keyColumns = quoted(key);
  const placeholders = key.map(() => '?').join(', ');
  let after: unknown[] | undefined;
  let rewrapped = 0;
  for (;;) {
    const rows = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(nextBatchSql(sealedTable, after === undefined), [current, ...(after ?? [])]);
    if (rows.length === 0) return rewrapped;
    rewrapped += await em.fork().transactional(async (tx) => {
      let updated = 0;
      for (const row of rows) {
        const masterKeyId = row.master_key_id as string;
        const sealed = rewrap(
          { ciphertext: new Uint8Array(), wrappedKey: row.wrapped_key as Buffer, masterKeyId },
          masters,
        );
        // Only where the row still holds the data key read: a value replaced since is the writer's.
        const { affectedRows } = await tx.execute<{ affectedRows: number }>(
          `update "${table}" set "wrapped_key" = ?, "master_key_id" = ?
            where (${keyColumns}) = (${placeholders}) and "master_key_id" = ?`,
          [Buffer.from(sealed.wrappedKey), sealed.masterKeyId, ...key.map((column) => row[column]), masterKeyId],
          'run',
        );
        updated += affectedRows;
      }
      return updated;
    });
    after = key.map((column) => rows.at(-1)![column]);
    if (rows.length < batchSize) return rewrapped;
  }
}

/** Values under any other key than the current one, in every table. */
async function countLeft(em: EntityManager, masters: MasterKeys): Promise<number> {
  const counts = sealedTables.map(
    ({ table }) => `(select count(*) from "${table}" where "master_key_id" is not null and "master_key_id" <> ?)`,
  );
  const [row] = await em.getConnection().execute<{ left: string }[]>(
    `select ${counts.join(' + ')} as "left"`,
    sealedTables.map(() => keyId(masters.current)),
  );
  return Number(row!.left);
}
