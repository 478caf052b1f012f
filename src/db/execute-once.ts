import pg from 'pg';

/** Runs one statement on a connection of its own: for readiness probes and database admin. */
export async function executeOnce(url: string, sql: string): Promise<true> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  await client.connect();
  try {
    await client.query(sql);
    return true;
  } finally {
    await client.end();
  }
}
