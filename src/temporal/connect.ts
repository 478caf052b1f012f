import { Client, Connection, type ConnectionLike } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { dataConverter } from './codec.ts';
import type { ConnectionSecurity } from '../net/connection-security.ts';

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

/**
 * A client of `target`. `shared`: on a native connection that workers of the same process also
 * use, as only such a client can ask the server to hand a new workflow's first task straight back
 * to this process (eager start); otherwise on a connection of its own, for processes that host no
 * worker (the CLI, `up`).
 */
export async function connectTemporal(
  target: TemporalTarget,
  shared: 'shared-with-workers',
): Promise<{ connection: NativeConnection; client: Client }>;
export async function connectTemporal(target: TemporalTarget): Promise<{ connection: Connection; client: Client }>;
export async function connectTemporal(target: TemporalTarget, shared?: 'shared-with-workers') {
  const { address, namespace, security } = target;
  const connection = shared
    ? await NativeConnection.connect({ address, ...security })
    : await Connection.connect({ address, connectTimeout: '5s', ...security });
  const converter = dataConverter(target.payloadKey, target.previousPayloadKeys);
  return { connection, client: new Client({ connection, namespace, dataConverter: converter }) };
}
