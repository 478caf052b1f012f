import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createNeoRpc } from '../src/chain/rpc.ts';
import { loadConfig } from '../src/config.ts';
import { openOrm } from '../src/orm.ts';
import { freePort } from '../src/net/ports.ts';
import { ensureGoProgram, neoGo } from '../src/stack/binaries.ts';
import { startNeoDevnet } from '../src/stack/neo-devnet.ts';
import { scratchDataDir } from '../test/support/scratch-services.ts';
import type { RunsStack } from './automation-runs.ts';
import { startCountingProxy, type RpcCounter } from './automations-stack.ts';
import type { Progress } from './measure.ts';
import { closeServer, elapsed } from './scratch-stack.ts';
import { startUpStack, type UpStack } from './up-stack.ts';

export interface ScaleStack extends UpStack, RunsStack {
  orm: MikroORM;
  /** neo-go itself, not through the counting proxy. */
  neoRpcUrl: string;
  /** Every JSON-RPC call the API and the worker make (the API makes none while nothing is created). */
  rpc: RpcCounter;
}

/**
 * The README stack, `neoflow up`, with one change so that its Neo RPC calls can be counted: the
 * neo-go devnet (the one `neoflow up` starts, 1-second blocks) is started here and named by
 * NEO_RPC_URL through a counting proxy, as a user names a node of their own. The bench reads the
 * stack's database with an ORM of its own. `extraEnv` sets more of the stack's variables;
 * `checkout`, another checkout whose `neoflow up` to run (a base commit's, bench/base-checkout.ts).
 */
export async function startScaleStack(
  progress: Progress,
  extraEnv: Record<string, string> = {},
  checkout?: string,
): Promise<ScaleStack> {
  const steps: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of steps.reverse())
      await step().catch((error: unknown) => progress(`stop failed: ${String(error)}`));
    steps.length = 0;
  };
  try {
    const began = performance.now();
    const scratch = await scratchDataDir('neoflow-bench-scale-');
    steps.push(() => rm(scratch, { recursive: true, force: true }));
    const neoGoPath = await ensureGoProgram(neoGo, loadConfig().binDir, progress);
    const devnet = await startNeoDevnet({ neoGoPath, dataDir: join(scratch, 'neo'), rpcPort: await freePort() });
    steps.push(() => devnet.stop());
    const proxy = await startCountingProxy(devnet.rpcUrl);
    steps.push(() => closeServer(proxy.server));
    progress(`neo-go devnet ${devnet.rpcUrl}, counted through ${proxy.counter.url} (${elapsed(began)})`);
    const up = await startUpStack(progress, '1000000/1s', { NEO_RPC_URL: proxy.counter.url, ...extraEnv }, checkout);
    steps.push(() => up.stop());
    const orm = await openOrm(up.databaseUrl);
    steps.push(() => orm.close());
    return {
      ...up,
      orm,
      neo: createNeoRpc(devnet.rpcUrl),
      neoRpcUrl: devnet.rpcUrl,
      devWallet: devnet.wallet,
      rpc: proxy.counter,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
