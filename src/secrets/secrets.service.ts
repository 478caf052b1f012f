import type { EntityManager } from '@mikro-orm/postgresql';
import { flushUniqueName } from '../db/flush-unique-name.ts';
import { AppError } from '../errors.ts';
import { findOwned } from '../db/owned.ts';
import { newId } from '../ids.ts';
import { seal, type MasterKeys } from '../crypto/envelope.ts';
import { Secret, SecretVersion } from './secret.entity.ts';
import { claimNextVersion } from './secret.sql.ts';
import type { CreateSecret, UpdateSecret } from './secrets.schemas.ts';
import { sealContexts } from '../crypto/seal-contexts.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { changeSummary } from '../audit/summary.ts';

const secretNotFound = () => new AppError('not_found', 'Secret not found.');

/** The audit log names a secret and the fields set, never its value. */
const secretChange = (secret: Secret, input: Record<string, unknown>) => ({
  resource: { type: 'secret' as const, id: secret.id },
  summary: changeSummary(input, ['name'], { name: secret.name, version: secret.version }),
});

export async function createSecret(em: EntityManager, masters: MasterKeys, actor: Actor, input: CreateSecret) {
  // The id is chosen now, not at flush: the first version's seal is bound to it.
  const secret = em.create(Secret, {
    id: newId('sec'),
    account: actor.accountId,
    name: input.name,
    description: input.description ?? null,
    version: 1,
  });
  addVersion(em, masters, secret, input.value);
  audit(em, actor, { action: 'secret.create', ...secretChange(secret, input) });
  await flushUniqueName(em, `A secret named "${input.name}" already exists.`);
  return secret;
}

export async function listSecrets(em: EntityManager, accountId: string, page: { limit: number; offset: number }) {
  const [secrets, total] = await em.findAndCount(
    Secret,
    { account: accountId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { secrets, total };
}

export function getSecret(em: EntityManager, accountId: string, id: string) {
  return findOwned(em, Secret, id, accountId, secretNotFound);
}

/**
 * A new value becomes a new version (functions read the newest); the description is metadata.
 * One transaction: the version number is claimed and its value stored together, or neither.
 */
export function updateSecret(em: EntityManager, masters: MasterKeys, actor: Actor, id: string, input: UpdateSecret) {
  return em.transactional(async (tx) => {
    const secret = await getSecret(tx, actor.accountId, id);
    if (input.description !== undefined) secret.description = input.description;
    if (input.value !== undefined) {
      secret.version = await nextVersion(tx, secret.id);
      addVersion(tx, masters, secret, input.value);
    }
    secret.updatedAt = new Date();
    audit(tx, actor, { action: 'secret.update', ...secretChange(secret, input) });
    return secret;
  });
}

async function nextVersion(em: EntityManager, secretId: string): Promise<number> {
  const version = await claimNextVersion(em, secretId);
  if (version === undefined) throw secretNotFound();
  return version;
}

export async function deleteSecret(em: EntityManager, actor: Actor, id: string) {
  const secret = await getSecret(em, actor.accountId, id);
  audit(em, actor, { action: 'secret.delete', ...secretChange(secret, {}) });
  await em.remove(secret).flush();
}

function addVersion(em: EntityManager, masters: MasterKeys, secret: Secret, value: string) {
  const sealed = seal(value, sealContexts.secret(secret.id, secret.version), masters);
  em.create(SecretVersion, { secret, version: secret.version, ...sealed });
}
