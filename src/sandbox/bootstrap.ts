import { readFileSync } from 'node:fs';
import ivm from 'isolated-vm';
import { type HostReply } from './host-calls.ts';
import { MAX_LOG_LINE_BYTES, MAX_LOG_LINES } from './logs.ts';
import { type SandboxRequest } from './types.ts';
import { ENTRY_FORMS_HINT } from './validate.ts';

// Plain JavaScript that runs inside the isolate; kept in its own file so it reads (and lints) as code.
const BOOTSTRAP_SOURCE = readFileSync(new URL('./bootstrap.js', import.meta.url), 'utf8');

interface Bridge {
  callHost: (name: unknown, args: unknown) => HostReply | Promise<HostReply>;
  log: (level: unknown, message: unknown) => void;
}

/** The data the context is built from; plain values only, copied into the isolate. */
function contextData(request: SandboxRequest) {
  return {
    params: request.params,
    execution: request.execution,
    environment: request.environment,
    secrets: Object.fromEntries(request.secrets.map((secret) => [secret.name, secret.value])),
    limits: { logLines: MAX_LOG_LINES, logLineChars: MAX_LOG_LINE_BYTES },
    entryHint: ENTRY_FORMS_HINT,
  };
}

/**
 * Installs the runtime context in `context` and returns a reference to the isolate's `run(namespace)`.
 * Host functions go in as References: isolated-vm gives the isolate only a handle whose calls copy.
 */
export async function installBootstrap(
  context: ivm.Context,
  request: SandboxRequest,
  bridge: Bridge,
): Promise<ivm.Reference<(namespace?: unknown) => Promise<unknown>>> {
  const bootstrap = await context.eval(BOOTSTRAP_SOURCE, { filename: 'neoflow:bootstrap', reference: true });
  const data = new ivm.ExternalCopy(contextData(request)).copyInto({ release: true });
  const args = [new ivm.Reference(bridge.callHost), new ivm.Reference(bridge.log), data];
  return bootstrap.apply(undefined, args, { result: { reference: true } }) as Promise<
    ivm.Reference<(namespace?: unknown) => Promise<unknown>>
  >;
}
