import type { EntityManager } from '@mikro-orm/postgresql';
import type { MasterKeys, Sealed } from '../../crypto/envelope.ts';
import { storeEnd, type End, type StoredReceipt } from '../execution.sql.ts';
import type { Refusal } from './commit-rules.ts';
import type { StorageChanges } from './run-storage.ts';
import { lockStore } from '../function.sql.ts';
import { applyChanges, sealSets } from './storage-store.ts';

/** Stored with its writes; `lost`: another process stored this execution's end first. */
type Committed = 'stored' | 'lost' | Refusal;

class RefusedWrites extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

/**
 * Stores a completed run's end and its storage writes in one transaction: both or neither. An end
 * stored once means writes applied once, whichever process ran the code and however often; a run
 * that failed, timed out or died never gets here. A refusal (a conflict, a quota) rolls back the
 * end too, for the caller to store the run as failed with it.
 */
export async function storeEndWithWrites(
  em: EntityManager,
  masters: MasterKeys,
  run: { executionId: string; functionId: string },
  end: End,
  result: Sealed,
  changes: StorageChanges,
  receipt?: StoredReceipt,
): Promise<Committed> {
  const sealed = sealSets(masters, run.functionId, changes.sets);
  try {
    return await em.fork().transactional(async (tx) => {
      // The function's lock before the execution's row: as a delete of the function takes them.
      await lockStore(tx, run.functionId);
      if (!(await storeEnd(tx, run.executionId, end, result, receipt))) return 'lost';
      const applied = await applyChanges(tx, run.functionId, changes, sealed);
      if (!(applied instanceof Map)) throw new RefusedWrites(applied);
      return 'stored';
    });
  } catch (error) {
    if (error instanceof RefusedWrites) return error.refusal;
    throw error;
  }
}
