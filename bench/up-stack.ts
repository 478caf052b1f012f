import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { embeddedPostgresUrl } from '../src/stack/embedded-postgres.ts';
import { freePort } from '../src/net/ports.ts';
import { neoflowArgsIn } from '../test/support/neoflow-command.ts';
import { scratchDataDir } from '../test/support/scratch-services.ts';
import { startNeoflowUp } from '../test/support/up.ts';
import type { Progress } from './measure.ts';
import { elapsed } from './scratch-stack.ts';

const run = promisify(execFile);

export interface UpStack {
  apiUrl: string;
  apiKey: string;
  temporalAddress: string;
  databaseUrl: string;
  /** A key of every scope for another account, made as the first was (`neoflow keys create`). */
  keyOf(account: string): Promise<string>;
  /** What `neoflow up` printed so far (its processes' logs, at NEOFLOW_LOG_LEVEL warn). */
  output(): string;
  /** Stops `neoflow up` (Ctrl-C) and removes the scratch directory. */
  stop(): Promise<void>;
}

/**
 * The stack exactly as a user starts it: `neoflow up` (the Temporal dev server on its SQLite file,
 * embedded PostgreSQL, a neo-go devnet, then the worker and the API as processes of their own) on
 * free ports in a scratch directory, and a key of every scope made with `neoflow keys create`.
 * `extraEnv` sets more of its variables (NEO_RPC_URL: a Neo node of the caller's instead of the devnet);
 * `checkout`, the root of another checkout whose `neoflow` runs the stack and makes the key (a
 * benchmark's base commit, bench/base-checkout.ts).
 */
export async function startUpStack(
  progress: Progress,
  rate = '1000000/1s',
  extraEnv: Record<string, string> = {},
  checkout?: string,
): Promise<UpStack> {
  const began = performance.now();
  const scratch = await scratchDataDir('neoflow-bench-up-');
  const ports = {
    NEOFLOW_API_PORT: await freePort(),
    NEOFLOW_EMBEDDED_PG_PORT: await freePort(),
    NEOFLOW_TEMPORAL_PORT: await freePort(),
    NEOFLOW_TEMPORAL_UI_PORT: await freePort(),
    NEOFLOW_NEO_RPC_PORT: await freePort(),
  };
  const env = {
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
    NEOFLOW_DATA_DIR: join(scratch, '.neoflow'),
    NEOFLOW_LOG_LEVEL: 'warn',
    // The benchmarks' price source is served on loopback, which tenants cannot reach by default.
    NEOFLOW_EGRESS_ALLOW: '127.0.0.1',
    // Schedules firing and prices read every second, under the 10 s allowed by default.
    NEOFLOW_SHORTEST_SCHEDULE_SECONDS: '1',
    NEOFLOW_SHORTEST_POLL_SECONDS: '1',
    // A benchmark measures throughput, not the per-account quotas.
    NEOFLOW_ACCOUNT_AUTOMATIONS: '1000000',
    NEOFLOW_ACCOUNT_QUEUED_EXECUTIONS: '1000000',
    ...extraEnv,
  };
  const up = await startNeoflowUp(env, undefined, checkout).catch(async (error: unknown) => {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  });
  const stop = async () => {
    await up.stop();
    await rm(scratch, { recursive: true, force: true });
  };
  try {
    const keyOf = async (account: string) => {
      const created = await run(
        process.execPath,
        neoflowArgsIn(checkout, 'keys', 'create', '--account', account, '--rate', rate),
        {
          env: { ...process.env, ...env },
        },
      );
      return created.stdout.trim().split('\n').at(-1)!;
    };
    const apiKey = await keyOf('bench');
    progress(`neoflow up ready, key created (${elapsed(began)})`);
    return {
      apiUrl: `http://127.0.0.1:${ports.NEOFLOW_API_PORT}`,
      apiKey,
      keyOf,
      temporalAddress: `127.0.0.1:${ports.NEOFLOW_TEMPORAL_PORT}`,
      databaseUrl: embeddedPostgresUrl(ports.NEOFLOW_EMBEDDED_PG_PORT),
      output: () => up.output(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
