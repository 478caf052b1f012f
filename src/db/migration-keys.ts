import type { MasterKeys } from '../crypto/envelope.ts';

/**
 * The master keys lent to the migrations of one ORM (by its configuration, which each migration
 * is given): a migration that seals existing values needs them, and only then.
 */
const lent = new WeakMap<object, MasterKeys>();

export const lendMasterKeys = (ormConfig: object, masterKeys: MasterKeys) => void lent.set(ormConfig, masterKeys);

export function lentMasterKeys(ormConfig: object, purpose: string): MasterKeys {
  const masterKeys = lent.get(ormConfig);
  if (!masterKeys) {
    throw new Error(`${purpose} needs the master key: run the migrations with NEOFLOW_MASTER_KEY set`);
  }
  return masterKeys;
}
