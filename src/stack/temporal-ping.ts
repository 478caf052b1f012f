import { Connection } from '@temporalio/client';

/** Connects, asks the frontend for its system info, and disconnects: a readiness probe. */
export async function pingTemporal(address: string): Promise<true> {
  const connection = await Connection.connect({ address, connectTimeout: '2s' });
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } finally {
    await connection.close();
  }
}
