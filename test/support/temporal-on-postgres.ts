import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, isPortFree } from '../../src/net/ports.ts';
import { ensureGoProgram, temporalServer, temporalSqlTool } from '../../src/stack/binaries.ts';
import { spawnManaged, waitFor, type ManagedProcess } from '../../src/stack/process.ts';
import { pingTemporal } from '../../src/stack/temporal-ping.ts';

const run = promisify(execFile);

/** What the compose file mounts at /etc/neoflow-temporal: the server's config and dynamic config. */
export const temporalDeployDir = fileURLToPath(new URL('../../deploy/temporal/', import.meta.url));

/** The pinned temporal-server and temporal-sql-tool, built into `binDir` on first use. */
export async function productionTemporal(binDir: string, progress: (line: string) => void) {
  const [server, sqlTool] = await Promise.all([
    ensureGoProgram(temporalServer, binDir, progress),
    ensureGoProgram(temporalSqlTool, binDir, progress),
  ]);
  const { stdout } = await run('go', ['mod', 'download', '-json', `go.temporal.io/server@${temporalServer.version}`]);
  // What admin-tools holds at /etc/temporal/schema/postgresql/v12.
  const schemaDir = `${(JSON.parse(stdout) as { Dir: string }).Dir}/schema/postgresql/v12`;
  return { server, sqlTool, schemaDir };
}

/** Temporal stores membership ports as a PostgreSQL smallint: a free one below 32768. */
async function membershipPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isPortFree(port)) return port;
  }
}

/** Free loopback ports for every service of the server, in the variables its config reads. */
export async function temporalServerPorts(): Promise<Record<string, string>> {
  const names = ['FRONTEND', 'MATCHING', 'HISTORY', 'WORKER'];
  const ports: Record<string, string> = {
    FRONTEND_HTTP_PORT: String(await freePort()),
    BIND_ON_IP: '127.0.0.1',
  };
  for (const name of names) {
    ports[`${name}_GRPC_PORT`] = String(await freePort());
    ports[`${name}_MEMBERSHIP_PORT`] = String(await membershipPort());
  }
  return ports;
}

export interface TemporalOnPostgres {
  address: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/**
 * temporal-server started as the compose file's `temporal` service starts it (`env` holds its
 * variables, ports from temporalServerPorts), once its frontend answers.
 */
export async function startTemporalOnPostgres(
  serverPath: string,
  env: Record<string, string>,
  logFile: string,
): Promise<TemporalOnPostgres> {
  const server = spawnManaged('temporal-server', serverPath, {
    args: ['--root', temporalDeployDir, '--config', 'config', '--env', 'docker', 'start'],
    env: { ...env, DYNAMIC_CONFIG_FILE_PATH: `${temporalDeployDir}config/dynamicconfig/neoflow.yaml` },
    output: logFile,
  });
  const address = `127.0.0.1:${env.FRONTEND_GRPC_PORT}`;
  try {
    await waitFor(`temporal-server (log ${logFile})`, () => pingTemporal(address).catch(() => undefined), {
      timeoutMs: 120_000,
      aborted: server.exited,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { address, process: server, stop: () => server.stop() };
}
