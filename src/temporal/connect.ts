import { Client, Connection } from '@temporalio/client';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
}

export async function connectTemporal(address: string, namespace: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  return { connection, client: new Client({ connection, namespace }) };
}
