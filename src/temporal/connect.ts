import { Client, Connection } from '@temporalio/client';
import { dataConverter } from './codec.ts';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
}

export interface TemporalTarget {
  address: string;
  namespace: string;
  /** Seals every payload the client sends (see codec.ts); the worker must hold the same key. */
  payloadKey: Buffer;
}

export async function connectTemporal({ address, namespace, payloadKey }: TemporalTarget): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  return { connection, client: new Client({ connection, namespace, dataConverter: dataConverter(payloadKey) }) };
}
