import { copyFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { NeoRpc } from '../src/chain/rpc.ts';
import type { DevWallet } from '../src/stack/neo-devnet.ts';
import type { ManagedProcess } from '../src/stack/process.ts';
import type { TemporalHandle } from '../src/temporal/connect.ts';
import { startWorkerProcess } from '../test/support/worker-process.ts';
import type { Progress } from './measure.ts';
import {
  closeServer,
  elapsed,
  listenLocal,
  startInProcessApi,
  startScratchStack,
  type ScratchStack,
} from './scratch-stack.ts';

/** Counts the JSON-RPC calls that pass through it, by method. */
export interface RpcCounter {
  url: string;
  /** A copy of the counts so far. */
  snapshot(): Map<string, number>;
}

export interface AutomationsBenchStack {
  apiUrl: string;
  apiKey: string;
  orm: MikroORM;
  temporal: TemporalHandle;
  temporalAddress: string;
  /** neo-go itself, for the bench's own calls (not counted). */
  neo: NeoRpc;
  neoRpcUrl: string;
  devWallet: DevWallet;
  /** The proxy the worker's NEO_RPC_URL names. */
  workerRpc: RpcCounter;
  worker: ManagedProcess;
  stop(): Promise<void>;
}

/** Where the worker's log is copied when the stack stops. */
const keptWorkerLog = join(tmpdir(), 'neoflow-bench-automations-worker.log');

/**
 * The real stack for the automations benchmark: embedded PostgreSQL, the Temporal dev server and
 * a neo-go devnet (1-second blocks) in a scratch directory; the API in this process over HTTP
 * (rate limit raised through NEOFLOW_RATE_LIMIT, its Neo calls straight to neo-go); and ONE
 * worker as a child process (`neoflow worker`), whose Neo RPC goes through a counting proxy.
 */
export async function startAutomationsStack(progress: Progress): Promise<AutomationsBenchStack> {
  return startScratchStack('neoflow-bench-auto-', progress, async (base) => {
    const proxy = await startCountingProxy(base.env.NEO_RPC_URL);
    base.onStop(() => closeServer(proxy.server));
    const worker = await startChildWorker(base, proxy.counter.url, progress);
    const rateLimit = process.env.BENCH_RATE_LIMIT ?? '100000/10s';
    const api = await startInProcessApi(base, progress, { NEOFLOW_RATE_LIMIT: rateLimit });
    progress(`api rate limit ${rateLimit}`);
    return {
      ...api,
      orm: base.orm,
      temporalAddress: base.env.TEMPORAL_ADDRESS,
      neoRpcUrl: base.env.NEO_RPC_URL,
      devWallet: base.services.devWallet,
      workerRpc: proxy.counter,
      worker: worker.process,
    };
  });
}

/** `neoflow worker` as a child process of the stack, its Neo RPC through `rpcUrl`. */
async function startChildWorker(base: ScratchStack, rpcUrl: string, progress: Progress) {
  const began = performance.now();
  const { env } = base;
  const logFile = join(base.scratch, 'worker.log');
  // Added before the worker's own stop, so it runs after it: the whole log outlives the scratch directory.
  base.onStop(() => copyFile(logFile, keptWorkerLog).catch(() => undefined));
  const dataDir = join(base.scratch, 'worker');
  const worker = await startWorkerProcess(env.DATABASE_URL, env.NEOFLOW_TASK_QUEUE, dataDir, logFile, {
    ...env,
    NEO_RPC_URL: rpcUrl,
    ...(process.env.BENCH_AUTOMATIONS_CPU_PROF
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_AUTOMATIONS_CPU_PROF}` }
      : {}),
  });
  base.onStop(() => worker.stop());
  const pid = worker.process.child.pid;
  progress(
    `worker pid ${pid} polling ${env.NEOFLOW_TASK_QUEUE}, rpc via ${rpcUrl}, log kept at ${keptWorkerLog} (${elapsed(began)})`,
  );
  return worker;
}

/** An HTTP proxy in front of neo-go that counts each JSON-RPC method (batches counted per call). */
export async function startCountingProxy(target: string): Promise<{ server: Server; counter: RpcCounter }> {
  const counts = new Map<string, number>();
  const count = (method: unknown) => {
    const name = typeof method === 'string' ? method : '(unknown)';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      countCalls(body, count);
      void forward(target, request, body, response);
    });
  });
  const url = await listenLocal(server);
  return { server, counter: { url, snapshot: () => new Map(counts) } };
}

function countCalls(body: Buffer, count: (method: unknown) => void) {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown } | { method?: unknown }[];
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) count(call.method);
  } catch {
    count('(unparsable)');
  }
}

/** Passes the request on to `target` and its answer back; a failure to reach it answers 502. */
async function forward(target: string, request: IncomingMessage, body: Buffer, response: ServerResponse) {
  try {
    const answer = await fetch(target, {
      method: request.method ?? 'POST',
      headers: { 'Content-Type': request.headers['content-type'] ?? 'application/json' },
      body: request.method === 'GET' ? undefined : body,
    });
    const payload = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(payload);
  } catch (error) {
    response.writeHead(502, { 'Content-Type': 'text/plain' });
    response.end(String(error));
  }
}
