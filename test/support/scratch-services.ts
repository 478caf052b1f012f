import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { ensureGoProgram, neoGo, temporalCli } from '../../src/stack/binaries.ts';
import { startEmbeddedPostgres } from '../../src/stack/embedded-postgres.ts';
import { startNeoDevnet, type DevWallet } from '../../src/stack/neo-devnet.ts';
import { freePort } from '../../src/net/ports.ts';
import { startTemporalDev } from '../../src/stack/temporal-dev.ts';

/** A throw-away data directory the embedded PostgreSQL (run as `postgres` under root) can enter. */
export async function scratchDataDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}

export interface ScratchServices {
  /** A database URL whose user may create databases. */
  postgresUrl: string;
  temporalAddress: string;
  neoRpcUrl: string;
  devWallet: DevWallet;
  neoGoPath: string;
  stop(): Promise<void>;
}

/**
 * Real PostgreSQL, Temporal and neo-go on free ports in `scratch` (which the `postgres` user must
 * be able to enter), for tests and benchmarks. A server given in `reuse` is used instead of
 * starting one. If any fails to start, those that started are stopped and the error is thrown.
 */
export async function startScratchServices(
  scratch: string,
  progress: (line: string) => void,
  reuse: { postgresUrl?: string | undefined; temporalAddress?: string | undefined } = {},
): Promise<ScratchServices> {
  const config = loadConfig();
  const [temporalPath, neoGoPath] = await Promise.all([
    ensureGoProgram(temporalCli, config.binDir, progress),
    ensureGoProgram(neoGo, config.binDir, progress),
  ]);
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => void (await Promise.allSettled(stops.map((stopOne) => stopOne())));
  const tracked = async <T extends { stop(): Promise<void> }>(start: () => Promise<T>) => {
    const service = await start();
    stops.push(() => service.stop());
    return service;
  };
  const starting = [
    reuse.postgresUrl
      ? Promise.resolve({ url: reuse.postgresUrl })
      : tracked(async () =>
          startEmbeddedPostgres(join(scratch, 'pg'), await freePort(), join(scratch, 'postgres.log')),
        ),
    reuse.temporalAddress
      ? Promise.resolve({ address: reuse.temporalAddress })
      : tracked(async () =>
          startTemporalDev({
            temporalPath,
            port: await freePort(),
            uiPort: undefined,
            uiCodecEndpoint: undefined,
            dbFile: undefined,
            logFile: join(scratch, 'temporal.log'),
            namespace: config.temporal.namespace,
          }),
        ),
    tracked(async () =>
      startNeoDevnet({ neoGoPath, dataDir: join(scratch, 'neo'), rpcPort: await freePort(), storage: 'inmemory' }),
    ),
  ] as const;
  const failed = (await Promise.allSettled(starting)).find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const [postgres, temporal, neo] = await Promise.all(starting);
  return {
    postgresUrl: postgres.url,
    temporalAddress: temporal.address,
    neoRpcUrl: neo.rpcUrl,
    devWallet: neo.wallet,
    neoGoPath,
    stop,
  };
}
