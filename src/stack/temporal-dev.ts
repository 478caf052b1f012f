import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { pingTemporal } from './temporal-ping.ts';
import { devServerSearchAttributeArgs } from '../temporal/search-attributes.ts';
import { spawnManaged, waitFor } from './process.ts';

export interface TemporalDevServer {
  address: string;
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

interface TemporalDevOptions {
  temporalPath: string;
  port: number;
  /** Web UI port; undefined runs headless (tests). */
  uiPort: number | undefined;
  /** Remote codec the Web UI decodes payloads through: the API's codec under its capability path. */
  uiCodecEndpoint: string | undefined;
  /** SQLite file that keeps history across restarts; undefined keeps everything in memory. */
  dbFile: string | undefined;
  logFile: string;
  namespace: string;
  /** Dynamic config values over these defaults (`key=value`): a test lowers a server limit with them. */
  dynamicConfig?: string[];
}

/**
 * The dev server's SQLite file in WAL mode with normal syncs: a commit survives a crash of the
 * process (what a dev stack needs) without an fsync per write, which makes starting a workflow
 * about three times faster (docs/performance.md).
 */
const sqliteFastDurable = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/**
 * The history service never lets a timer fire sooner than this after it is created (a margin for
 * clocks that disagree between hosts, 1 s by default). A schedule's timer to the next second is
 * shorter than that, so every every-second fire started ~0.65 s late; one process has one clock,
 * and 100 ms puts a fire's start at ~70 ms after its second (docs/performance.md).
 */
const timerPrecision = ['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="100ms"'];

/**
 * `start-dev` turns this on (so that search attributes added while it runs are usable at once),
 * which makes the server read the cluster's metadata three times and the namespace once from its
 * database for every workflow started, and more for each attribute update and visibility write:
 * ~10% of its CPU per start (docs/performance.md). Neoflow's attributes are registered before it
 * serves (`--search-attribute`); one that `neoflow up` adds later (a data file from an older
 * version) is usable once the namespace cache refreshes, every 2 s. Temporal's own default.
 */
const searchAttributesCached = ['--dynamic-config-value', 'system.forceSearchAttributesCacheRefreshOnRead=false'];

/**
 * Go's collector runs when the heap has grown by GOGC % since the last one (100 by default): at
 * 10,000 automations it took ~14 % of the dev server's CPU (perf, `bench:scale`), mostly marking
 * the same long-lived state each time. At 200 it runs half as often, for ~1.5× the memory (600 →
 * ~870 MiB at 10,000): a trade a small machine with memory to spare wants (docs/performance.md).
 * A GOGC set in the environment is the operator's and is kept.
 */
const collectorPace = { GOGC: process.env.GOGC ?? '200' };

/** `temporal server start-dev` with Neoflow's search attributes registered. */
export async function startTemporalDev(options: TemporalDevOptions): Promise<TemporalDevServer> {
  const address = `127.0.0.1:${options.port}`;
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port)];
  args.push('--namespace', options.namespace, '--log-level', 'warn', ...devServerSearchAttributeArgs());
  args.push(...timerPrecision, ...searchAttributesCached);
  for (const value of options.dynamicConfig ?? []) args.push('--dynamic-config-value', value);
  if (options.dbFile) {
    await mkdir(join(options.dbFile, '..'), { recursive: true });
    args.push('--db-filename', options.dbFile, ...sqliteFastDurable);
  }
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-ip', '127.0.0.1', '--ui-port', String(options.uiPort));
  if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  const server = spawnManaged('temporal', options.temporalPath, {
    args,
    env: { ...process.env, ...collectorPace },
    output: options.logFile,
  });
  try {
    await waitFor('Temporal dev server', () => pingTemporal(address), { timeoutMs: 60_000, aborted: server.exited });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const uiUrl = options.uiPort === undefined ? undefined : `http://127.0.0.1:${options.uiPort}`;
  return { address, uiUrl, stop: () => server.stop() };
}
