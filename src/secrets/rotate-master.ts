import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { AccountSigner } from '../auth/signer.entity.ts';
import { ExecutionResult } from '../functions/execution.entity.ts';
import { keyId } from '../crypto/key-id.ts';
import { rewrap, type MasterKeys, type Sealed } from './envelope.ts';
import { SecretVersion } from './secret.entity.ts';

const batchSize = 200;

/**
 * Re-wraps every data key not yet under the current master key (secret values, account
 * signers, execution results and kept idempotent answers), a batch per transaction, while the service keeps running (readers accept the previous
 * keys meanwhile). Values are never decrypted: only data keys pass through memory. Returns how
 * many were re-wrapped.
 */
export async function rotateMasterKey(em: EntityManager, masters: MasterKeys): Promise<number> {
  // Every entity holding a value sealed by envelope.ts belongs here.
  const secretVersions = await rotateEntity(em, SecretVersion, masters);
  const signers = await rotateEntity(em, AccountSigner, masters);
  const results = await rotateEntity(em, ExecutionResult, masters);
  return secretVersions + signers + results + (await rotateKeptAnswers(em, masters));
}

/** The answers kept for idempotent requests (src/api/idempotency.ts): plain rows, no entity. */
async function rotateKeptAnswers(em: EntityManager, masters: MasterKeys) {
  const connection = em.getConnection();
  let rewrapped = 0;
  for (;;) {
    const rows = await connection.execute<
      { account_id: string; key: string; ciphertext: Buffer; wrapped_key: Buffer; master_key_id: string }[]
    >(
      `select "account_id", "key", "ciphertext", "wrapped_key", "master_key_id" from "idempotent_requests"
        where "answered" and "master_key_id" <> ? limit ${batchSize}`,
      [keyId(masters.current)],
    );
    for (const row of rows) {
      const sealed = rewrap(
        { ciphertext: row.ciphertext, wrappedKey: row.wrapped_key, masterKeyId: row.master_key_id },
        masters,
      );
      await connection.execute(
        `update "idempotent_requests" set "wrapped_key" = ?, "master_key_id" = ? where "account_id" = ? and "key" = ?`,
        [Buffer.from(sealed.wrappedKey), sealed.masterKeyId, row.account_id, row.key],
        'run',
      );
    }
    rewrapped += rows.length;
    if (rows.length < batchSize) return rewrapped;
  }
}

async function rotateEntity<T extends Sealed>(em: EntityManager, entity: EntityName<T>, masters: MasterKeys) {
  const stale = { masterKeyId: { $ne: keyId(masters.current) } } as FilterQuery<T>;
  let rewrapped = 0;
  for (;;) {
    // Re-wrapped rows no longer match once committed, so each query finds the next batch.
    const batch = await em.fork().transactional(async (tx) => {
      const rows = await tx.find(entity, stale, { limit: batchSize });
      for (const row of rows) Object.assign(row, rewrap(row, masters));
      return rows.length;
    });
    rewrapped += batch;
    if (batch < batchSize) return rewrapped;
  }
}
