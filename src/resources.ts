import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import type { Networks } from './chain/nodes/networks.ts';
import type { NeoRpc } from './chain/rpc.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import type { MasterKeys } from './crypto/envelope.ts';
import type { PayloadKeys } from './crypto/master-keys.ts';

/**
 * What a process opens (PostgreSQL, Neo RPC, Temporal and the keys) beside its config and log: what
 * its worker runs over and what the API's areas share. Opened once at start-up; the process that
 * opened them closes them (open-resources.ts): opening names every entity, so the areas, which
 * read this type, never import the opening.
 */
export interface Resources {
  config: Config;
  log: Logger;
  orm: MikroORM;
  /** The request's EntityManager (MikroORM's RequestContext resolves the global one per request). */
  em: () => EntityManager;
  /** The default network's nodes: the first of `networks`. */
  neo: NeoRpc;
  /** Every network followed, each a pool of nodes (NEOFLOW_NETWORKS, or NEO_RPC_URL's one). */
  networks: Networks;
  /** Seal and open secret values (NEOFLOW_MASTER_KEY, plus previous keys during a rotation). */
  masterKeys: MasterKeys;
  /** Open and seal Temporal payloads (NEOFLOW_PAYLOAD_KEY, plus previous keys during a rotation). */
  payloadKeys: PayloadKeys;
  /** One native connection for the process's worker and its client alike. */
  temporal: { connection: NativeConnection; client: Client };
}
