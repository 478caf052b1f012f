import type { EntityManager } from '@mikro-orm/postgresql';
import type { Sealed } from '../crypto/envelope.ts';

/**
 * The statements a master key's rotation runs over every table holding a value sealed by
 * envelope.ts: the same few over each, so they are written once for all.
 */

/** A table holding values sealed by envelope.ts: its key columns, in their index's order. */
export interface SealedTable {
  table: string;
  key: string[];
}

/** Every table holding a value sealed by envelope.ts belongs here. */
export const sealedTables: SealedTable[] = [
  { table: 'secret_versions', key: ['id'] },
  { table: 'signers', key: ['id'] },
  { table: 'automation_credentials', key: ['id'] },
  { table: 'execution_results', key: ['execution_id'] },
  // Functions' stored values (src/functions/storage/).
  { table: 'function_storage', key: ['function_id', 'key'] },
  // Answers kept for idempotent requests (src/api/idempotency.ts); a claim not answered holds none.
  { table: 'idempotent_requests', key: ['account_id', 'key'] },
];

const quoted = (columns: string[]) => columns.map((column) => `"${column}"`).join(', ');

/**
 * The next batch of `table`'s values under another key than `current`, after the key `after` (the
 * last of the batch before; none for the first): a range of the primary key's index, so each
 * batch reads on from where the last ended.
 */
function nextBatchSql({ table, key }: SealedTable, first: boolean, batchSize: number) {
  const keyColumns = quoted(key);
  const from = first ? '' : `and (${keyColumns}) > (${key.map(() => '?').join(', ')})`;
  return `select ${keyColumns}, "wrapped_key", "master_key_id" from "${table}"
    where "master_key_id" is not null and "master_key_id" <> ? ${from}
    order by ${keyColumns} limit ${batchSize}`;
}

/** Up to `batchSize` rows of the table under another key than `current`, after the key `after`: key columns, wrapped key and its master key's id. */
export async function nextBatch(
  em: EntityManager,
  sealedTable: SealedTable,
  current: string,
  after: unknown[] | undefined,
  batchSize: number,
) {
  return em
    .getConnection()
    .execute<Record<string, unknown>[]>(nextBatchSql(sealedTable, after === undefined, batchSize), [
      current,
      ...(after ?? []),
    ]);
}

/**
 * Stores the row's data key re-wrapped (`sealed`), only where the row still holds the data key
 * read (under `masterKeyId`): a value replaced since is the writer's. Answers the rows updated.
 */
export async function storeRewrapped(
  tx: EntityManager,
  { table, key }: SealedTable,
  row: Record<string, unknown>,
  sealed: Sealed,
  masterKeyId: string,
): Promise<number> {
  const { affectedRows } = await tx.execute<{ affectedRows: number }>(
    `update "${table}" set "wrapped_key" = ?, "master_key_id" = ?
            where (${quoted(key)}) = (${key.map(() => '?').join(', ')}) and "master_key_id" = ?`,
    [Buffer.from(sealed.wrappedKey), sealed.masterKeyId, ...key.map((column) => row[column]), masterKeyId],
    'run',
  );
  return affectedRows;
}

/** Values under any other key than `current`, in every table. */
export async function countLeft(em: EntityManager, current: string): Promise<number> {
  const counts = sealedTables.map(
    ({ table }) => `(select count(*) from "${table}" where "master_key_id" is not null and "master_key_id" <> ?)`,
  );
  const [row] = await em.getConnection().execute<{ left: string }[]>(
    `select ${counts.join(' + ')} as "left"`,
    sealedTables.map(() => current),
  );
  return Number(row!.left);
}
