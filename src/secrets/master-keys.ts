import { requireSetting, type Config } from '../config.ts';
import type { MasterKeys } from './envelope.ts';

export function masterKeysOf(config: Config): MasterKeys {
  return {
    current: requireSetting(config.secrets.masterKey, 'NEOFLOW_MASTER_KEY'),
    previous: config.secrets.previousMasterKeys,
  };
}
