import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { NeoRpc } from './chain/rpc.ts';
import type { TemporalHandle } from './temporal/connect.ts';
import type { MasterKeys } from './crypto/envelope.ts';
import type { PayloadKeys } from './crypto/master-keys.ts';
import type { LocalRuns } from './functions/local-runs.ts';

/** What the API's areas share; built once at start-up. */
export interface Services {
  config: Config;
  log: Logger;
  orm: MikroORM;
  /** The request's EntityManager (MikroORM's RequestContext resolves the global one per request). */
  em: () => EntityManager;
  temporal: TemporalHandle;
  /**
   * Set when a worker of this process shares `temporal`'s connection and was given the same
   * instance: workflows are started eagerly, and their ends handed over in process.
   */
  localRuns: LocalRuns | undefined;
  neo: NeoRpc;
  /** Seal and open secret values (NEOFLOW_MASTER_KEY, plus previous keys during a rotation). */
  masterKeys: MasterKeys;
  /** Open and seal Temporal payloads (NEOFLOW_PAYLOAD_KEY, plus previous keys during a rotation). */
  payloadKeys: PayloadKeys;
}
