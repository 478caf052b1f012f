import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { dataConverter } from './codec.ts';
import type { ConnectionSecurity } from './connection-security.ts';

export interface TemporalHandle {
  /** A native connection where a worker shares it (so the client can start workflows eagerly). */
  connection: ConnectionLike;
  client: Client;
}

interface TemporalTarget {
  address: string;
  namespace: string;
  /** TLS, API key and headers of a real cluster (connection-security.ts); none for the dev server. */
  security?: ConnectionSecurity;
  /** Seals every payload the client sends (see codec.ts); the worker must hold the same key. */
  payloadKey: Buffer;
  /** Keys of a payload-key rotation: what they sealed still opens. */
  previousPayloadKeys?: Buffer[];
}

/** A client on a connection of its own: for processes that host no worker (the CLI, `up`). */
export async function connectTemporal(target: TemporalTarget) {
  const { address, namespace, security } = target;
  const connection = await Connection.connect({ address, connectTimeout: '5s', ...security });
  return { connection, client: new Client({ connection, namespace, dataConverter: targetConverter(target) }) };
}

const targetConverter = (target: TemporalTarget) => dataConverter(target.payloadKey, target.previousPayloadKeys);

/**
 * A client on a native connection that workers of the same process also use: only such a client
 * can ask the server to hand a new workflow's first task straight back to this process (eager start).
 */
export async function connectNativeTemporal(target: TemporalTarget) {
  const { address, namespace, security } = target;
  const connection = await NativeConnection.connect({ address, ...security });
  return { connection, client: new Client({ connection, namespace, dataConverter: targetConverter(target) }) };
}
