import { readFileSync } from 'node:fs';
import ivm from 'isolated-vm';
import { runCached } from './code-cache.ts';
import { userFilename } from './compile.ts';
import { type HostReply, maxHostArgumentChars } from './host-calls.ts';
import { outputLimits } from './output.ts';
import { timerLimits } from './timers.ts';
import { maxResultBytes } from './result.ts';
import { type SandboxRequest } from './types.ts';
import { entryFormsHint } from './validate.ts';

// Plain JavaScript that runs inside the isolate; kept in its own files so it reads (and lints) as code.
const bootstrapSource = readFileSync(new URL('./bootstrap.js', import.meta.url), 'utf8');
const globalsSource = readFileSync(new URL('./globals.js', import.meta.url), 'utf8');
const urlSource = readFileSync(new URL('./url.js', import.meta.url), 'utf8');

interface Bridge {
  callHost: (name: unknown, json: unknown) => HostReply | Promise<HostReply>;
  log: (level: unknown, message: unknown) => void;
}

/**
 * The data the context is built from; plain values only, copied into the isolate. Texts leave the
 * isolate cut to their cap plus `slackChars`, so that the host masks secrets before its own cut.
 */
function contextData(request: SandboxRequest, slackChars: number, scriptCode: string | undefined) {
  return {
    // A script is run by the isolate itself (a module, whose top level the host evaluates, is not).
    script: scriptCode === undefined ? undefined : { code: scriptCode, filename: userFilename },
    params: request.params,
    execution: request.execution,
    environment: request.environment,
    secrets: Object.fromEntries(request.secrets.map((secret) => [secret.name, secret.value])),
    limits: {
      logLines: outputLimits.logLines,
      logLineChars: outputLimits.logLineBytes + slackChars,
      errorNameChars: outputLimits.errorNameBytes + slackChars,
      errorMessageChars: outputLimits.errorMessageBytes + slackChars,
      errorStackChars: outputLimits.errorStackBytes + slackChars,
      hostArgumentChars: maxHostArgumentChars,
      // A UTF-16 unit is at least one byte of UTF-8: more units than the cap in bytes never fit.
      resultChars: maxResultBytes,
    },
    entryHint: entryFormsHint,
    globals: {
      pendingTimers: timerLimits.pending,
      timersPerRun: timerLimits.perRun,
      maxDelayMs: request.timeoutMs,
      // An encoding's answer is a few times its input: a quarter of the heap bounds any input.
      maxInputChars: Math.floor((request.memoryLimitMb * 1024 * 1024) / 4),
    },
  };
}

/** The bootstrap expression, evaluated in a context: it installs the runtime once given a run's data. */
export type BootstrapEntry = ivm.Reference<(...args: unknown[]) => unknown>;

/**
 * Evaluates the bootstrap and the globals' installers in `context`, the bootstrap given the
 * installers; nothing of a run is in it yet, so it can be done ahead.
 */
export async function evaluateBootstrap(isolate: ivm.Isolate, context: ivm.Context): Promise<BootstrapEntry> {
  const bootstrap = await runCached(isolate, context, bootstrapSource, 'neoflow:bootstrap');
  const globals = await runCached(isolate, context, globalsSource, 'neoflow:globals');
  const url = await runCached(isolate, context, urlSource, 'neoflow:url');
  return context.evalClosure(
    'return (hostCall, hostLog, data) => $0(hostCall, hostLog, data, (host, limits) => { const shared = $1(host, limits); $2(shared); return shared; });',
    [bootstrap.derefInto(), globals.derefInto(), url.derefInto()],
    { filename: 'neoflow:bootstrap', result: { reference: true } },
  ) as Promise<BootstrapEntry>;
}

/**
 * Installs the runtime context of one run and returns a reference to the isolate's `run(namespace)`.
 * Host functions go in as References: isolated-vm gives the isolate only a handle whose calls copy.
 */
export async function installBootstrap(
  bootstrap: BootstrapEntry,
  request: SandboxRequest,
  bridge: Bridge,
  slackChars: number,
  scriptCode: string | undefined,
): Promise<ivm.Reference<(namespace?: unknown) => Promise<unknown>>> {
  const data = new ivm.ExternalCopy(contextData(request, slackChars, scriptCode)).copyInto({ release: true });
  const args = [new ivm.Reference(bridge.callHost), new ivm.Reference(bridge.log), data];
  return bootstrap.apply(undefined, args, { result: { reference: true } }) as Promise<
    ivm.Reference<(namespace?: unknown) => Promise<unknown>>
  >;
}
