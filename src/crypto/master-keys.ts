import { requireSetting, type Config } from '../config.ts';
import type { MasterKeys } from './envelope.ts';

export function masterKeysOf(config: Config): MasterKeys {
  return {
    current: requireSetting(config.secrets.masterKey, 'NEOFLOW_MASTER_KEY'),
    previous: config.secrets.previousMasterKeys,
  };
}

/** The master keys if the configuration has one: what sealing values already stored needs. */
export const masterKeysIfSet = (config: Config): MasterKeys | undefined =>
  config.secrets.masterKey ? masterKeysOf(config) : undefined;
