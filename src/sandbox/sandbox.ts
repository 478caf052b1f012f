import type ivm from 'isolated-vm';
import { installBootstrap } from './bootstrap.ts';
import { compileUserCode, importsUnavailable } from './compile.ts';
import { sandboxError, userError } from './errors.ts';
import { hostDispatcher } from './host-calls.ts';
import { LogCollector } from './logs.ts';
import { outputText, type OutputText } from './output.ts';
import { freshIsolates, type IsolateSource, type PreparedIsolate } from './prepared-isolate.ts';
import { decodeResult } from './result.ts';
import { stripTypesForRun } from './strip-cache.ts';
import { type SandboxError, type SandboxOutcome, type SandboxRequest } from './types.ts';
import { executionErrorName, executionStatus } from '../shared/outcomes.ts';

/** What the isolate's `run` resolves to (see bootstrap.js). */
type RunReply = { ok: true; json?: string } | { ok: false; error: SandboxError };

interface Watchdog {
  fired(): boolean;
  stop(): void;
}

/**
 * Runs one user function in a fresh isolate (taken from `isolates`, never used before) that is
 * disposed afterwards. The isolate's own `timeout` option covers synchronous code only; disposing
 * from a host timer also stops code that loops after an `await`, so the wall-clock limit holds for
 * the whole run.
 */
export async function runInSandbox(
  request: SandboxRequest,
  isolates: IsolateSource = freshIsolates,
): Promise<SandboxOutcome> {
  const startedAt = performance.now();
  const output = outputText(request.secrets);
  const logs = new LogCollector(output);
  const secretsRead = new Set<string>();
  const code = request.typescript
    ? await stripTypesForRun(request.code, request.execution.functionId)
    : { ok: true as const, code: request.code };
  if (!code.ok) {
    // Code that parsed when it was saved, refused by this process's Node: said as a syntax error;
    // a stripping that outlived its deadline, as a timeout.
    const error =
      'refused' in code && code.refused === 'deadline'
        ? sandboxError(executionErrorName.TimeoutError, `The code's types were not stripped in time: ${code.message}`)
        : sandboxError('SyntaxError', `The code does not parse as TypeScript: ${code.message}.`);
    return {
      status: executionStatus.failed,
      error,
      logs: [],
      secretsRead: [],
      durationMs: Math.round(performance.now() - startedAt),
    };
  }
  const prepared = await isolates.take(request.memoryLimitMb);
  const { isolate } = prepared;
  const watchdog = startWatchdog(isolate, request.timeoutMs, request.signal);
  const runEnded = new AbortController();
  let reply: RunReply;
  try {
    reply = await execute(
      prepared,
      { ...request, code: code.code },
      { logs, secretsRead, output, runEnded: runEnded.signal },
    );
  } catch (error) {
    reply = { ok: false, error: failureOf(error, isolate, watchdog, request, output) };
  } finally {
    watchdog.stop();
    // Calls the code started and never awaited, or that outlived a timeout, stop with the run.
    runEnded.abort();
    if (!isolate.isDisposed) isolate.dispose();
  }
  const durationMs = Math.round(performance.now() - startedAt);
  const decoded = reply.ok ? decodeResult(reply.json) : reply;
  const common = { logs: logs.lines(), secretsRead: [...secretsRead], durationMs };
  return decoded.ok
    ? { status: executionStatus.completed, result: decoded.result, ...common }
    : { status: executionStatus.failed, error: decoded.error, ...common };
}

/** What one run collects, and the signal that tells its host calls it has ended. */
interface RunState {
  logs: LogCollector;
  secretsRead: Set<string>;
  output: OutputText;
  runEnded: AbortSignal;
}

async function execute(
  { isolate, context, bootstrap }: PreparedIsolate,
  request: SandboxRequest,
  { logs, secretsRead, output, runEnded }: RunState,
): Promise<RunReply> {
  const compiled = await compileUserCode(isolate, request.code);
  const onSecretRead = (name: string) => void secretsRead.add(name);
  const bounds = { maxCalls: request.maxServiceCalls, signal: runEnded, timeoutMs: request.timeoutMs };
  const bridge = {
    callHost: hostDispatcher(request.services, request.storage, onSecretRead, bounds),
    log: logs.add.bind(logs),
  };
  // A script is compiled here only to know its kind and its syntax: the isolate runs its source.
  if (compiled.kind === 'script') compiled.script.release();
  const scriptCode = compiled.kind === 'script' ? request.code : undefined;
  const run = await installBootstrap(bootstrap, request, bridge, output.slackChars, scriptCode);
  const namespace = compiled.kind === 'module' ? await evaluateModule(context, compiled.module) : undefined;
  const reply = (await run.apply(undefined, [namespace], { result: { promise: true, copy: true } })) as RunReply;
  return reply.ok ? reply : { ok: false, error: userError(reply.error, output) };
}

/**
 * Runs a module's top level and hands its namespace to the isolate's `run`. What a module's top
 * level throws crosses whole (isolated-vm copies a rejected evaluation into the host): a limit of
 * modules, said in docs/functions.md; a script's top level runs inside the isolate instead.
 */
async function evaluateModule(context: ivm.Context, module: ivm.Module): Promise<ivm.Dereference<unknown>> {
  await module.instantiate(context, () => {
    throw new Error(importsUnavailable);
  });
  await module.evaluate();
  return module.namespace.derefInto();
}

function startWatchdog(isolate: ivm.Isolate, timeoutMs: number, signal: AbortSignal | undefined): Watchdog {
  let fired = false;
  const stopIsolate = () => {
    if (!isolate.isDisposed) isolate.dispose();
  };
  const timer = setTimeout(() => {
    fired = true;
    stopIsolate();
  }, timeoutMs);
  signal?.addEventListener('abort', stopIsolate, { once: true });
  return {
    fired: () => fired,
    stop: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stopIsolate);
    },
  };
}

/** A disposed isolate means the watchdog fired or V8 hit the memory limit; anything else is the user's. */
function failureOf(
  error: unknown,
  isolate: ivm.Isolate,
  watchdog: Watchdog,
  request: SandboxRequest,
  output: OutputText,
): SandboxError {
  if (watchdog.fired()) {
    return sandboxError(executionErrorName.TimeoutError, `The function did not finish within ${request.timeoutMs} ms.`);
  }
  if (request.signal?.aborted) return sandboxError(executionErrorName.CancelledError, 'The execution was cancelled.');
  if (isolate.isDisposed) {
    return sandboxError(
      executionErrorName.MemoryLimitError,
      `The function exceeded its memory limit of ${request.memoryLimitMb} MiB.`,
    );
  }
  return userError(error instanceof Error ? error : { message: String(error) }, output);
}
