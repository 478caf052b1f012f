import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../auth/api-key.entity.ts';
import { generateKey, hashKey, keyHint } from '../auth/key-material.ts';
import type { Caller } from '../auth/admission.ts';
import { managesKeys, roles, scopesLacking, type Role } from '../auth/roles.ts';
import { AppError } from '../errors.ts';
import { otherUsableKeys } from '../auth/api-key.sql.ts';
import type { CreateKey } from './keys.schemas.ts';
import { audit } from '../audit/audit.ts';
import type { Actor } from '../audit/actor.ts';
import { valuesSummary } from '../audit/summary.ts';

/** A key in the audit log: its name, role and prefix (the first characters), never the key. */
export const keyChange = (action: 'key.create' | 'key.revoke', key: ApiKey) => ({
  action,
  resource: { type: 'key' as const, id: key.id },
  summary: valuesSummary({ name: key.name ?? null, role: key.role ?? null, prefix: key.hint }),
});

const keyNotFound = () => new AppError('key_not_found', 'Key not found.');

function keyView(key: ApiKey) {
  return {
    id: key.id,
    name: key.name ?? null,
    prefix: key.hint,
    role: (key.role ?? null) as Role | null,
    scopes: key.scopes,
    createdBy: key.createdByKeyId ?? null,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
  };
}

/**
 * A key of the caller's account, answered once. It grants no scope its creator lacks: a 403
 * names the ones it would.
 */
export async function createManagedKey(em: EntityManager, caller: Caller, actor: Actor, body: CreateKey) {
  const wanted = body.role ? [...roles[body.role]] : [...new Set(body.scopes)];
  const lacking = scopesLacking(caller.scopes, wanted);
  if (lacking.length > 0) {
    throw new AppError('forbidden', `This API key cannot grant scopes it does not hold: ${lacking.join(', ')}.`, {
      missingScopes: lacking,
    });
  }
  const key = generateKey();
  const record = em.create(ApiKey, {
    account: caller.accountId,
    hash: hashKey(key),
    hint: keyHint(key),
    name: body.name,
    scopes: wanted,
    role: body.role ?? null,
    createdByKeyId: caller.keyId,
    expiresAt: body.expiresAt === undefined ? null : new Date(body.expiresAt),
  });
  audit(em, actor, keyChange('key.create', record));
  await em.flush();
  return { ...keyView(record), key };
}

/** The account's keys not revoked (expired ones included, their `expiresAt` says so), newest first. */
export async function listManagedKeys(em: EntityManager, accountId: string, page: { limit: number; offset: number }) {
  const [keys, total] = await em.findAndCount(
    ApiKey,
    { account: accountId, revokedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { keys: keys.map(keyView), total };
}

/**
 * Revokes a key of the account at once: the next request with it, to any API process, is refused
 * (no process caches keys). The account's last usable key that manages keys, and its last owner
 * (`*`) key, cannot be revoked: 409 `last_key_manager`.
 */
export async function revokeManagedKey(em: EntityManager, actor: Actor, keyId: string): Promise<void> {
  const { accountId } = actor;
  await em.transactional(async (tx) => {
    const key = await tx.findOne(ApiKey, { id: keyId, account: accountId, revokedAt: null });
    if (!key) throw keyNotFound();
    const others = await otherUsableKeys(tx, accountId, keyId);
    // An expired key manages nothing any more: revoking it takes nothing away.
    const usable = !key.expiresAt || key.expiresAt > new Date();
    const lastManager = usable && managesKeys(key.scopes) && others.managers === 0;
    const lastOwner = usable && key.scopes.includes('*') && others.owners === 0;
    if (lastManager || lastOwner) {
      throw new AppError(
        'last_key_manager',
        `This is the account's last ${lastOwner ? 'owner key' : 'key that can manage keys'}: create another before revoking it.`,
      );
    }
    key.revokedAt = new Date();
    audit(tx, actor, keyChange('key.revoke', key));
  });
}
