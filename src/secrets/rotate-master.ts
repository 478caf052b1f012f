import type { EntityManager } from '@mikro-orm/postgresql';
import { masterKeyId, rewrap, type MasterKeys } from './envelope.ts';
import { SecretVersion } from './secret.entity.ts';

const batchSize = 200;

/**
 * Re-wraps every data key not yet under the current master key, a batch per transaction, while
 * the service keeps running (readers accept the previous keys meanwhile). Values are never
 * decrypted: only data keys pass through memory. Returns how many were re-wrapped.
 */
export async function rotateMasterKey(em: EntityManager, masters: MasterKeys): Promise<number> {
  const currentId = masterKeyId(masters.current);
  let rewrapped = 0;
  for (;;) {
    const batch = await em.fork().transactional(async (tx) => {
      const rows = await tx.find(
        SecretVersion,
        { masterKeyId: { $ne: currentId } },
        { limit: batchSize, orderBy: { id: 'asc' } },
      );
      for (const row of rows) Object.assign(row, rewrap(row, masters));
      return rows.length;
    });
    rewrapped += batch;
    if (batch < batchSize) return rewrapped;
  }
}
