import { requireSetting, type Config } from '../config.ts';
import type { MasterKeys } from './envelope.ts';

/** The payload key that seals Temporal payloads, and older ones still accepted for opening. */
export type PayloadKeys = MasterKeys;

export function masterKeysOf(config: Config): MasterKeys {
  return {
    current: requireSetting(config.secrets.masterKey, 'NEOFLOW_MASTER_KEY'),
    previous: config.secrets.previousMasterKeys,
  };
}

export function payloadKeysOf(config: Config): PayloadKeys {
  return {
    current: requireSetting(config.secrets.payloadKey, 'NEOFLOW_PAYLOAD_KEY'),
    previous: config.secrets.previousPayloadKeys,
  };
}

/** The master keys if the configuration has one: what sealing values already stored needs. */
export const masterKeysIfSet = (config: Config): MasterKeys | undefined =>
  config.secrets.masterKey ? masterKeysOf(config) : undefined;
